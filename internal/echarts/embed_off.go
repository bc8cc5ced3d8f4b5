//go:build !embed_echarts

package echarts

// embedded is nil in a plain build: Load uses the cache.
var embedded *Files
