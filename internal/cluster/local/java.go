package local

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
)

var javaVersionRE = regexp.MustCompile(`version "((\d+)(?:\.(\d+))?[^"]*)"`)

// checkJava finds java and makes sure it can run Kafka 4 (Java 17 or newer).
// It returns the version string java printed.
func checkJava() (string, error) {
	path, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("java not found: Kafka 4 needs Java 17 or newer (apt-get install openjdk-17-jre-headless)")
	}
	out, err := exec.Command(path, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -version failed: %v\n%s", path, err, out)
	}
	m := javaVersionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("cannot read the version of %s from %q", path, out)
	}
	major, _ := strconv.Atoi(string(m[2]))
	if major == 1 && m[3] != nil { // 1.8 style
		major, _ = strconv.Atoi(string(m[3]))
	}
	if major < 17 {
		return "", fmt.Errorf("%s is Java %d: Kafka 4 needs Java 17 or newer (apt-get install openjdk-17-jre-headless, or put a newer java first on PATH)", path, major)
	}
	return "Java " + string(m[1]), nil
}
