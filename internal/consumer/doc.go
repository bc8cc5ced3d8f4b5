// Package consumer is franz-go's consumer group member, which runs as a
// process of its own (franz-go's driver, internal/driver, behind the same
// protocol as every other client's member), so that a crash is a real
// SIGKILL: it polls a topic, processes each
// message by applying its effect to the group's SQLite store, and commits
// offsets in one of three modes. It reports every delivery, effect and
// commit on its standard output, one JSON line each; the engine records
// them as the group's evidence and tallies them against the store.
package consumer
