package kubernetes

import (
	"fmt"

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

// connect reads the kubeconfig as kubectl does (KUBECONFIG, else
// ~/.kube/config; kubeconfig names one file explicitly) and takes its
// current context's namespace unless namespace is given.
func connect(kubeconfig, namespace string) (*api, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes: no usable kubeconfig (set KUBECONFIG or --kubeconfig; scripts/kubernetes-up.sh prints one): %w", err)
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
