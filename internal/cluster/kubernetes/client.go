package kubernetes

import (
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// api is a connection to the API server and the namespace kafkabook works
// in.
type api struct {
	cfg       *rest.Config
	cs        kubernetes.Interface
	namespace string
}

// ScriptKubeconfig is where scripts/kubernetes-up.sh writes the
// kubeconfig of the single-node cluster it brings up.
const ScriptKubeconfig = "/run/kafkabook-kubernetes/kubeconfig"

// DefaultKubeconfig is the kubeconfig file kafkabook reads when none is
// named: "" (kubectl's rules: $KUBECONFIG, else ~/.kube/config) when
// either of those is set or exists, else ScriptKubeconfig when it exists,
// so that kubernetes-up.sh followed by `kafkabook run --backend
// kubernetes` needs nothing exported in between.
func DefaultKubeconfig() string {
	if os.Getenv("KUBECONFIG") != "" {
		return ""
	}
	if _, err := os.Stat(clientcmd.RecommendedHomeFile); err == nil {
		return ""
	}
	if _, err := os.Stat(ScriptKubeconfig); err == nil {
		return ScriptKubeconfig
	}
	return ""
}

// connect reads the kubeconfig as kubectl does (KUBECONFIG, else
// ~/.kube/config; kubeconfig names one file explicitly; else the one
// kubernetes-up.sh writes, see DefaultKubeconfig) and takes its current
// context's namespace unless namespace is given.
func connect(kubeconfig, namespace string) (*api, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig == "" {
		kubeconfig = DefaultKubeconfig()
	}
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes: no usable kubeconfig (set KUBECONFIG or --kubeconfig, or bring up a test cluster with scripts/kubernetes-up.sh, whose kubeconfig is read without either): %w", err)
	}
	if namespace == "" {
		if namespace, _, err = cc.Namespace(); err != nil {
			return nil, err
		}
	}
	cfg.QPS, cfg.Burst = 50, 100
	cfg.WarningHandler = rest.NoWarnings{} // deprecation notes are not the user's business
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &api{cfg: cfg, cs: cs, namespace: namespace}, nil
}
