package report

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// CSP is the page's Content-Security-Policy. Scripts run only when they are
// ours: the shared echarts file ('self'), and the inline scripts the page
// was built with, each allowed by its sha256 (the chart script, and echarts
// itself in a single-file page). Any other inline script, such as one that
// slipped into the page through evidence, is refused by the browser, which
// logs the refusal. A page without charts runs no script at all. Styles
// stay inline: the page's stylesheet and the charts' sizes.
func (h head) CSP() string {
	scripts := "'none'"
	if h.ChartsNeeded {
		var src []string
		if h.EchartsSrc != "" {
			src = append(src, "'self'")
		}
		if h.EchartsJS != "" {
			src = append(src, scriptHash(string(h.EchartsJS)))
		}
		src = append(src, scriptHash(string(h.Script)))
		scripts = strings.Join(src, " ")
	}
	return "default-src 'none'; script-src " + scripts + "; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
}

// scriptHash is the CSP source that allows the inline script whose text,
// between <script> and </script>, is js.
func scriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
