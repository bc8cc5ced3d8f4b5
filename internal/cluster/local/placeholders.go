package local

// Placeholders maps the cluster's state directory to $KAFKABOOK_STATE: the
// brokers' log lines name their data directories under it.
func (b *Backend) Placeholders() map[string]string {
	return map[string]string{b.dir: "$KAFKABOOK_STATE"}
}
