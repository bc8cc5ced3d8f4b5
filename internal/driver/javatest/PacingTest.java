// PacingTest: when each message of a paced run is due (intended_ns, from
// which its latency runs) and waitDue, which holds the send until then.

final class PacingTest {
    private PacingTest() {
    }

    static void testInterval() {
        Check.eq(0.0, KafkabookDriver.interval(0));
        Check.eq(0.0, KafkabookDriver.interval(-5));
        Check.eq(500_000.0, KafkabookDriver.interval(2000));
        Check.eq(2e9, KafkabookDriver.interval(0.5));
        Check.eq(1e9 / 3, KafkabookDriver.interval(3));
    }

    // Message i is due i/rate seconds after the start, truncated to the
    // nanosecond: the protocol's example, message 42 at 2000/s, is due at
    // 21 ms.
    static void testIntendedFromTheStart() {
        double at2000 = KafkabookDriver.interval(2000);
        Check.eq(0L, KafkabookDriver.intendedNs(0, at2000));
        Check.eq(21_000_000L, KafkabookDriver.intendedNs(42, at2000));
        Check.eq(3_600_000_000_000L, KafkabookDriver.intendedNs(7_200_000, at2000));
        double at3 = KafkabookDriver.interval(3);
        Check.eq(333_333_333L, KafkabookDriver.intendedNs(1, at3));
        Check.eq(666_666_666L, KafkabookDriver.intendedNs(2, at3));
        Check.eq(1_000_000_000L, KafkabookDriver.intendedNs(3, at3));
    }

    // Unpaced, every message is due at the start.
    static void testAllAtOnce() {
        double none = KafkabookDriver.interval(0);
        for (long i : new long[] {0, 1, 1000, Integer.MAX_VALUE + 1L}) {
            Check.eq(0L, KafkabookDriver.intendedNs(i, none));
        }
    }

    // The schedule neither drifts nor goes backwards: message i is due at
    // i/rate seconds to within a nanosecond (the truncation) at any rate,
    // however long the run.
    static void testNoDrift() {
        for (double rate : new double[] {1, 7, 333, 2000, 12_345.6, 1e6}) {
            double iv = KafkabookDriver.interval(rate);
            long prev = -1;
            for (long i = 0; i < 10_000_000; i += 9_973) {
                long t = KafkabookDriver.intendedNs(i, iv);
                double exact = i * 1e9 / rate;
                double off = exact - t, ulp = Math.ulp(exact); // the doubles' own rounding aside
                Check.that(t >= prev, "rate " + rate + ": message " + i + " due before the one before it");
                Check.that(off >= -2 * ulp && off < 1 + 2 * ulp, "rate " + rate + ": message " + i + " due " + off + " ns early");
                prev = t;
            }
        }
    }

    static void testWaitDueWaits() {
        long t0 = System.nanoTime();
        Check.that(KafkabookDriver.waitDue(30_000_000L, t0), "waitDue: false while not stopped");
        long waited = System.nanoTime() - t0;
        Check.that(waited >= 30_000_000L, "waitDue returned after " + waited + " ns, before the 30 ms due");
    }

    static void testWaitDueLate() {
        long t0 = System.nanoTime() - 1_000_000_000L;
        long start = System.nanoTime();
        Check.that(KafkabookDriver.waitDue(0, t0), "waitDue: false while not stopped");
        long waited = System.nanoTime() - start;
        Check.that(waited < 500_000_000L, "a message already due waited " + waited + " ns");
    }

    // A stopped run sends nothing more, however far the next message.
    static void testWaitDueStopped() {
        KafkabookDriver.stopped.set(true);
        try {
            long start = System.nanoTime();
            Check.that(!KafkabookDriver.waitDue(3_600_000_000_000L, start), "waitDue: true when stopped");
            Check.that(System.nanoTime() - start < 500_000_000L, "waitDue waited though stopped");
        } finally {
            KafkabookDriver.stopped.set(false);
        }
    }

    // A run stopped while a send waits for its time does not send it (the
    // wait itself runs to the due time; the stdin watch halts the driver
    // within 5 s in any case).
    static void testWaitDueStoppedMeanwhile() throws InterruptedException {
        long start = System.nanoTime();
        Thread stopper = new Thread(() -> {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            KafkabookDriver.stopped.set(true);
        });
        try {
            stopper.start();
            Check.that(!KafkabookDriver.waitDue(300_000_000L, start), "waitDue: true though stopped meanwhile");
        } finally {
            stopper.join();
            KafkabookDriver.stopped.set(false);
        }
    }
}
