package kubernetes

import (
	"os"
	"regexp"
	"testing"

	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// TestScriptAgrees checks that scripts/kubernetes-up.sh and kafkabook agree
// on what a run after it needs: the kubeconfig's path, which kafkabook
// reads when none is named, and the release whose image the script loads
// by default, which is the release a runbook runs on when it names none.
func TestScriptAgrees(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	common := read("../../../scripts/kubernetes/common.sh")
	images := read("../../../scripts/kubernetes/images.sh")
	runDir := regexp.MustCompile(`(?m)^RUN_DIR=(\S+)$`).FindStringSubmatch(common)
	kc := regexp.MustCompile(`(?m)^KUBECONFIG_PATH=\$RUN_DIR(/\S+)$`).FindStringSubmatch(common)
	if runDir == nil || kc == nil {
		t.Fatal("common.sh sets no RUN_DIR=... or KUBECONFIG_PATH=$RUN_DIR/...")
	}
	if got := runDir[1] + kc[1]; got != ScriptKubeconfig {
		t.Errorf("kubernetes-up.sh writes its kubeconfig to %s, kafkabook looks for it at %s", got, ScriptKubeconfig)
	}
	def := regexp.MustCompile(`(?m)^DEFAULT_KAFKA=(\S+)$`).FindStringSubmatch(images)
	if def == nil || def[1] != kafkadist.Default {
		t.Errorf("kubernetes-up.sh loads the image of Kafka %v by default, kafkabook's default release is %s", def, kafkadist.Default)
	}
}
