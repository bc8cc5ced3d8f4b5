// JsonTest: the spec as Json.parseObject reads it (good JSON in every form
// kafkabook's encoder can give, and bad JSON refused, never half read),
// and Json.quote, which every line the driver writes goes through.

import java.util.Arrays;
import java.util.List;
import java.util.Map;

final class JsonTest {
    private JsonTest() {
    }

    static Map<String, Object> parse(String s) {
        return KafkabookDriver.Json.parseObject(s);
    }

    static void testTheProtocolsSpec() {
        Map<String, Object> m = parse("{\"topic\":\"acks-demo\",\"bootstrap_servers\":[\"10.0.0.1:9092\",\"10.0.0.2:9092\"],"
                + "\"rate\":2000,\"size\":100,\"from\":1,\"count\":5000,"
                + "\"properties\":{\"linger.ms\":\"5\"},\"event_id\":null,\"handoff\":true}");
        Check.eq("acks-demo", m.get("topic"));
        Check.eq(List.of("10.0.0.1:9092", "10.0.0.2:9092"), m.get("bootstrap_servers"));
        Check.eq(5000L, m.get("count"));
        Check.eq(2000L, m.get("rate"));
        Check.eq(Map.of("linger.ms", "5"), m.get("properties"));
        Check.that(m.containsKey("event_id") && m.get("event_id") == null, "event_id: null kept as a null value");
        Check.eq(Boolean.TRUE, m.get("handoff"));
        KafkabookDriver.Spec spec = new KafkabookDriver.Spec(m);
        Check.eq(2000.0, spec.rate);
        Check.eq(5000L, spec.count);
        Check.eq(null, spec.eventId);
    }

    static void testNestedObjectsAndArrays() {
        Map<String, Object> m = parse("{\"a\":{\"b\":{\"c\":[1,[2,[]],{\"d\":null},{}]}},\"e\":[],\"f\":{}}");
        Object c = ((Map<?, ?>) ((Map<?, ?>) m.get("a")).get("b")).get("c");
        Check.eq(Arrays.asList(1L, List.of(2L, List.of()), java.util.Collections.singletonMap("d", null), Map.of()), c);
        Check.eq(List.of(), m.get("e"));
        Check.eq(Map.of(), m.get("f"));
    }

    static void testKeysKeepTheirOrder() {
        Check.eq(List.of("z", "a", "m"), List.copyOf(parse("{\"z\":1,\"a\":2,\"m\":3}").keySet()));
    }

    static void testWhitespaceAroundTokens() {
        Check.eq(Map.of("a", List.of(1L, 2L)), parse(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] }\n "));
    }

    static void testLiterals() {
        Map<String, Object> m = parse("{\"t\":true,\"f\":false,\"n\":null}");
        Check.eq(Boolean.TRUE, m.get("t"));
        Check.eq(Boolean.FALSE, m.get("f"));
        Check.that(m.containsKey("n") && m.get("n") == null, "null value");
    }

    // Integers are Long and other numbers Double: Spec reads both through
    // Number, and a property's value is written with String.valueOf.
    static void testNumbers() {
        Map<String, Object> m = parse("{\"zero\":0,\"neg\":-7,\"max\":9223372036854775807,\"min\":-9223372036854775808,"
                + "\"half\":1.5,\"exp\":1e3,\"negexp\":-2.5E-3,\"one\":1.0,\"big\":9223372036854775808}");
        Check.eq(0L, m.get("zero"));
        Check.eq(-7L, m.get("neg"));
        Check.eq(Long.MAX_VALUE, m.get("max"));
        Check.eq(Long.MIN_VALUE, m.get("min"));
        Check.eq(1.5, m.get("half"));
        Check.eq(1000.0, m.get("exp"));
        Check.eq(-0.0025, m.get("negexp"));
        Check.eq(1.0, m.get("one"));
        Check.eq(9.223372036854775807E18, m.get("big"));
        Check.eq(1000L, KafkabookDriver.Spec.num(m, "exp", 0));
        Check.eq(3L, KafkabookDriver.Spec.num(m, "absent", 3));
    }

    static void testEscapes() {
        Map<String, Object> m = parse("{\"s\":\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\",\"u\":\"\\u00e9\\u0000\\u001F\",\"pair\":\"\\ud83d\\ude00\"}");
        Check.eq("q\" b\\ s/ \b\f\n\r\t", m.get("s"));
        Check.eq("\u00e9\u0000\u001f", m.get("u"));
        Check.eq("\uD83D\uDE00", m.get("pair"));
    }

    // Text beyond ASCII comes as it is (the driver reads stdin as UTF-8).
    static void testUnicodeAsIs() {
        Check.eq(Map.of("k\u00e9", "\u65e5\u672c \uD83D\uDE00"), parse("{\"k\u00e9\":\"\u65e5\u672c \uD83D\uDE00\"}"));
    }

    static void testNotAnObject() {
        for (String s : new String[] {"", " ", "[1,2]", "42", "\"spec\"", "null", "true"}) {
            RuntimeException e = Check.fails(() -> parse(s));
            Check.that(e instanceof IllegalArgumentException && e.getMessage().equals("spec is not a JSON object"),
                    "input " + Check.show(s) + ": " + e);
        }
    }

    // Bad JSON is refused as a whole: the driver then writes startup_error
    // with the exception's class and message, and exits 2.
    static void testBadJSON() {
        String[] bad = {
            "{", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{\"a\":1,}", "{,}",
            "{a:1}", "{'a':1}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":True}", "{\"a\":[1,]}", "{\"a\":[1 2]}",
            "{\"a\":1} x", "{\"a\":1}{}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\u12g4\"}",
            "{\"a\":\"open}", "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}",
            "{\"a\":--1}", "{\"a\":1e}", "/* c */{}", "{} // c", "{\"a\":\"x\ny\"}", "{\"a\":\"tab\there\"}",
        };
        for (String s : bad) {
            RuntimeException e = Check.fails(() -> parse(s));
            Check.that(e instanceof com.google.gson.JsonParseException || e instanceof IllegalArgumentException,
                    "input " + Check.show(s) + ": " + e);
            Check.that(e.getMessage() != null && !e.getMessage().isEmpty(), "input " + Check.show(s) + ": no message");
        }
    }

    // A key given twice: the last wins. kafkabook's encoder never writes
    // one; this says what the driver would do.
    static void testDuplicateKeyLastWins() {
        Check.eq(Map.of("a", 2L), parse("{\"a\":1,\"a\":2}"));
    }

    static void testQuote() {
        Check.eq("\"\"", KafkabookDriver.Json.quote(""));
        Check.eq("\"plain m-001\"", KafkabookDriver.Json.quote("plain m-001"));
        Check.eq("\"a\\\"b\\\\c/d\"", KafkabookDriver.Json.quote("a\"b\\c/d"));
        Check.eq("\"\\u0000\\u0008\\u0009\\u000a\\u000c\\u000d\\u001f\"", KafkabookDriver.Json.quote("\u0000\b\t\n\f\r\u001f"));
        // Printable text, DEL and beyond ASCII as they are: Out writes UTF-8.
        Check.eq("\" ~\u007f\u00e9\u2028\uD83D\uDE00\"", KafkabookDriver.Json.quote(" ~\u007f\u00e9\u2028\uD83D\uDE00"));
    }

    // What quote writes, parseObject reads back unchanged, for every
    // character below 0x80 and a few beyond.
    static void testQuoteRoundTrip() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x80; c++) {
            all.append(c);
        }
        for (String s : new String[] {all.toString(), "\u00e9\u65e5\uD83D\uDE00\u2028", "\\\"\\\\", "m-042 ....."}) {
            Check.eq(s, parse("{\"k\":" + KafkabookDriver.Json.quote(s) + "}").get("k"));
        }
    }
}
