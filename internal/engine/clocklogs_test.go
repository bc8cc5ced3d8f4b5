package engine

import "testing"

// TestNotableRetention: the evidence keeps the broker's lines about what
// retention by time did, which a stepped clock decides (the lines as
// Kafka 4.3.1 wrote them in the local backend's TestClock).
func TestNotableRetention(t *testing.T) {
	for _, l := range []string{
		"[2026-12-06T08:35:57.767Z] INFO [UnifiedLog partition=r-0, dir=/d] Deleting segment LogSegment(baseOffset=0, size=1295, lastModifiedTime=1796542534402, largestRecordTimestamp=1796542534163) due to log retention time 120000ms breach based on the largest record timestamp in the segment (org.apache.kafka.storage.internals.log.UnifiedLog)",
		"[2026-12-06T08:35:57.768Z] INFO [UnifiedLog partition=r-0, dir=/d] Incremented log start offset to 100 due to SegmentDeletion (org.apache.kafka.storage.internals.log.UnifiedLog)",
		"[2026-12-06T07:37:36.963Z] WARN [UnifiedLog partition=clock-0, dir=/d] LogSegment(baseOffset=0, size=1533, lastModifiedTime=1796542629170, largestRecordTimestamp=1796546226804) contains future timestamp(s), making it ineligible to be deleted (LogFutureTimestampLogger)",
	} {
		if !notable.MatchString(l) {
			t.Errorf("notable leaves out %s", l)
		}
	}
}
