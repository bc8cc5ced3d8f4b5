package main

import (
	"github.com/spf13/pflag"
)

// attachFlags make run use a Kafka cluster in Kubernetes that kafkabook
// did not start: --attach NAME (a Strimzi Kafka's name, found by its
// pods' labels) and --allow-faults NAME, without which its faults are
// refused (backends.ForRun checks and attaches).
type attachFlags struct {
	name, allowFaults string
}

func (a *attachFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.name, "attach", "", "kubernetes: run against the existing Kafka cluster `NAME` (a Strimzi Kafka: pods labelled strimzi.io/cluster=NAME) instead of starting one; kafkabook adds only its client pod, which it removes afterwards")
	fs.StringVar(&a.allowFaults, "allow-faults", "", "with --attach: let the runbook's faults hurt the attached cluster `NAME` (must name it again)")
}
