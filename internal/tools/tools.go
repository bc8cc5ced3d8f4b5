//go:build tools

// Package tools pins modules that packages under construction will import.
package tools

import (
	_ "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/chromedp/chromedp"
	_ "github.com/go-echarts/go-echarts/v2/charts"
	_ "github.com/spf13/cobra"
	_ "github.com/twmb/franz-go/pkg/kadm"
	_ "github.com/twmb/franz-go/pkg/kgo"
	_ "github.com/vishvananda/netlink"
	_ "github.com/vishvananda/netns"
	_ "github.com/yuin/goldmark"
	_ "go.abhg.dev/goldmark/frontmatter"
	_ "gopkg.in/yaml.v3"
)
