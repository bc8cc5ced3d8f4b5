package kafkadist

import (
	"cmp"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Central is Maven Central, where Install resolves Kafka from.
const Central = "https://repo1.maven.org/maven2"

// Releases lists the Kafka releases published to the Maven repository at
// base (Central, or a mirror), oldest first: the versions of the broker's
// artifact (org.apache.kafka:kafka_2.13, which Install resolves) that are
// release numbers (x.y.z, no candidates), from since on ("" for all).
func Releases(ctx context.Context, client *http.Client, base, since string) ([]string, error) {
	url := strings.TrimSuffix(base, "/") + "/org/apache/kafka/kafka_2.13/maven-metadata.xml"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list Kafka releases: %w (is %s reachable?)", err, base)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list Kafka releases: GET %s: %s", url, resp.Status)
	}
	var meta struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	if err := xml.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&meta); err != nil {
		return nil, fmt.Errorf("list Kafka releases: %s: %w", url, err)
	}
	var out []string
	for _, v := range meta.Versions {
		if versionRE.MatchString(v) && (since == "" || CompareReleases(v, since) >= 0) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, CompareReleases)
	return slices.Compact(out), nil
}

// CompareReleases orders two release numbers (x.y.z) as numbers: 4.10.0
// after 4.9.1.
func CompareReleases(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(pa), len(pb))
}
