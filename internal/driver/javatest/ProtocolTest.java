// ProtocolTest runs the driver as kafkabook does, without a cluster: a
// spec it cannot read is a startup_error and exit code 2; a producer whose
// broker never answers refuses its record (no metadata within
// max.block.ms) and ends with shutdown_complete and exit code 0.

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

final class ProtocolTest {
    private ProtocolTest() {
    }

    record Run(int code, List<Map<String, Object>> lines) {
    }

    // run starts the driver on this JVM's class path, writes stdin, and
    // returns the exit code and the lines, each parsed, once the driver
    // has exited. stdin stays open until then: its end stops a run. A
    // driver still running after 60 s is killed, and the test fails.
    static Run run(String stdin) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "KafkabookDriver")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        AtomicBoolean killed = new AtomicBoolean();
        Thread watchdog = new Thread(() -> {
            try {
                if (p.waitFor(60, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                // kill it all the same
            }
            killed.set(true);
            p.destroyForcibly();
        });
        watchdog.setDaemon(true);
        watchdog.start();
        String out;
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
            in.flush();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        watchdog.join();
        if (killed.get()) {
            throw new AssertionError("the driver did not exit within 60 s; it wrote: " + out);
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        for (String l : out.split("\n")) {
            if (!l.isEmpty()) {
                lines.add(KafkabookDriver.Json.parseObject(l));
            }
        }
        return new Run(p.exitValue(), lines);
    }

    static void testBadSpec() throws Exception {
        Run r = run("{\"topic\":\"t\",\"count\":\n");
        Check.eq(2, r.code());
        Check.eq(1, r.lines().size());
        Map<String, Object> e = r.lines().get(0);
        Check.eq(List.of("name", "exception", "message"), List.copyOf(e.keySet()));
        Check.eq("startup_error", e.get("name"));
        Check.eq("com.google.gson.JsonSyntaxException", e.get("exception"));
    }

    static void testNoBroker() throws Exception {
        Run r = run("{\"topic\":\"t\",\"bootstrap_servers\":[\"127.0.0.1:9\"],\"count\":1,\"properties\":{\"max.block.ms\":\"200\"}}\n"
                + "{\"command\":\"start\"}\n");
        Check.eq(0, r.code());
        Check.eq(List.of("startup_complete", "producer_send_error", "shutdown_complete"), r.lines().stream().map(m -> m.get("name")).toList());
        Map<String, Object> err = r.lines().get(1);
        Check.eq("failed", err.get("class"));
        Check.eq("org.apache.kafka.common.errors.TimeoutException", err.get("exception"));
        Check.eq("m-001", err.get("value"));
        Check.eq(0L, err.get("intended_ns"));
        Map<String, Object> end = r.lines().get(2);
        Check.eq(1L, end.get("sent"));
        Check.eq(List.of("name", "sent", "max_lag_ns", "end_ns"), List.copyOf(end.keySet()));
    }
}
