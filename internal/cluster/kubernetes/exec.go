package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/exec"
)

// stream runs argv in a container of a pod, with the given standard
// streams (nil ones are not attached), and returns when it exits. Its exit
// status is an error unless zero: exitCode tells it.
func (a *api) stream(ctx context.Context, pod, container string, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	req := a.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(a.namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{
			Container: container, Command: argv,
			Stdin: stdin != nil, Stdout: stdout != nil, Stderr: stderr != nil,
		}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(a.cfg, "POST", req.URL())
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// run runs argv in a container and returns its standard output; a
// non-zero exit is an error that quotes its standard error.
func (a *api) run(ctx context.Context, pod, container string, argv ...string) (string, error) {
	var out, errb strings.Builder
	err := a.stream(ctx, pod, container, argv, nil, &out, &errb)
	if err != nil {
		return out.String(), fmt.Errorf("%s in pod %s (container %s): %w: %s", strings.Join(argv, " "), pod, container, err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// exitCode is the exit status stream's error carries, -1 when the error
// is not an exit (the connection failed).
func exitCode(err error) int {
	var ce exec.CodeExitError
	if errors.As(err, &ce) {
		return ce.Code
	}
	if err == nil {
		return 0
	}
	return -1
}
