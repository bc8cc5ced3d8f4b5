// Check holds the assertions of the java driver's unit tests: each throws
// an AssertionError saying what was wanted and what came, which TestRunner
// reports as the test's failure.

import java.util.Objects;

final class Check {
    private Check() {
    }

    static void eq(Object want, Object got) {
        if (!Objects.equals(want, got)) {
            throw new AssertionError("want " + show(want) + ", got " + show(got));
        }
    }

    static void that(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    // fails runs r and returns what it threw: a test of an error's kind
    // and message; r returning normally is a failure.
    static RuntimeException fails(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("want an exception, got none");
    }

    static String show(Object o) {
        if (o == null) {
            return "null";
        }
        return o.getClass().getSimpleName() + " " + (o instanceof String ? "\"" + o + "\"" : o);
    }
}
