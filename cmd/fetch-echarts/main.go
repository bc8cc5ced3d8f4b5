// Command fetch-echarts writes the pinned echarts (fetched into the cache
// and integrity-checked, as a report would) into a directory, for a release
// build that embeds it: scripts/fetch-echarts.sh runs it on
// internal/echarts/embed.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/kafkabook/kafkabook/internal/echarts"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fetch-echarts DIR")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	f, err := echarts.Load(ctx, func(msg string) { fmt.Fprintln(os.Stderr, msg) })
	if err == nil {
		err = f.Copy(os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fetch-echarts: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("echarts %s (%s) -> %s\n", f.Version, f.From, os.Args[1])
}
