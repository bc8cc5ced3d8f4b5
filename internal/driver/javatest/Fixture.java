// Fixture holds what the driver's unit tests share, the java driver's and
// the spring driver's alike (it is compiled with both): a spec from its
// JSON line, and the lines the driver's Out holds.

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

final class Fixture {
    private Fixture() {
    }

    static KafkabookDriver.Spec spec(String json) {
        return new KafkabookDriver.Spec(KafkabookDriver.Json.parseObject(json));
    }

    // lines takes the lines the driver's Out holds (the tests start no
    // flusher, so nothing has left it).
    static List<Map<String, Object>> lines() {
        String s;
        synchronized (KafkabookDriver.out) {
            s = KafkabookDriver.out.buf.toString();
            KafkabookDriver.out.buf.setLength(0);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (String l : s.split("\n")) {
            if (!l.isEmpty()) {
                out.add(KafkabookDriver.Json.parseObject(l));
            }
        }
        return out;
    }
}
