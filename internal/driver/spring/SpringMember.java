// SpringMember is kafkabook's consumer group member on Spring Kafka's
// listener container (docs/driver-protocol.md, "Consumer group members"):
// a KafkaMessageListenerContainer built directly (no Spring Boot), whose
// AcknowledgingMessageListener runs the java member's handling steps
// (Member.Handler, Member.Store) and, with the manual ack modes, calls
// acknowledge() once a record is handled, as the second article's listener
// does. The container polls and commits as its AckMode says; deliveries
// and commits are reported from the java member's ConsumerInterceptor
// (onConsume, onCommit), so that what the container committed, and when,
// is what the report shows.

import java.io.BufferedReader;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.AcknowledgingMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.support.Acknowledgment;

public final class SpringMember {
    public static void main(Map<String, Object> raw, BufferedReader in) {
        Member.MemberSpec spec;
        Properties props;
        KafkaMessageListenerContainer<byte[], byte[]> container;
        Member.Handler h;
        ContainerProperties cp;
        try {
            spec = new Member.MemberSpec(raw);
            Member.spec = spec;
            props = spec.consumerProperties();
            props.putIfAbsent("client.id", new ConsumerConfig(props).getString("client.id"));
            h = new Member.Handler(spec, new Member.Store(spec.store));
            Map<String, Object> configs = new HashMap<>();
            for (String k : props.stringPropertyNames()) {
                configs.put(k, props.getProperty(k));
            }
            cp = new ContainerProperties(spec.topic);
            if (!spec.ackMode.isEmpty()) {
                cp.setAckMode(ContainerProperties.AckMode.valueOf(spec.ackMode.toUpperCase()));
            }
            cp.setPollTimeout(100);
            boolean manual = cp.getAckMode() == ContainerProperties.AckMode.MANUAL
                    || cp.getAckMode() == ContainerProperties.AckMode.MANUAL_IMMEDIATE;
            cp.setMessageListener((AcknowledgingMessageListener<byte[], byte[]>) (ConsumerRecord<byte[], byte[]> r, Acknowledgment ack) -> {
                try {
                    // Where the member commits (after), the listener
                    // acknowledges in the manual modes; the container
                    // commits by itself in the others.
                    h.handle(r, rec -> {
                        if (manual && ack != null) {
                            ack.acknowledge();
                        }
                    });
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            container = new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<byte[], byte[]>(configs), cp);
        } catch (Exception e) {
            Member.Events.line("{\"name\":\"startup_error\",\"exception\":" + KafkabookDriver.Json.quote(e.getClass().getName())
                    + ",\"message\":" + KafkabookDriver.Json.quote(String.valueOf(e.getMessage())) + "}");
            System.exit(2);
            return;
        }
        Member.handler = h; // deliveries from the interceptor's onConsume
        Member.watchStdin(in);
        CountDownLatch term = new CountDownLatch(1);
        Member.onTerm(term::countDown);
        Map<String, Object> values = new TreeMap<>(new ConsumerConfig(props).values());
        values.put("container.ackMode", cp.getAckMode().toString());
        values.put("container.ackCount", Integer.toString(cp.getAckCount()));
        values.put("container.ackTime", Long.toString(cp.getAckTime()));
        values.put("container.pollTimeout", Long.toString(cp.getPollTimeout()));
        values.put("container.syncCommits", Boolean.toString(cp.isSyncCommits()));
        String version = KafkaMessageListenerContainer.class.getPackage().getImplementationVersion();
        Member.Events.line(Member.startupComplete("spring", "spring-kafka", version == null ? "unknown" : version,
                "java " + System.getProperty("java.version") + ", kafka-clients " + org.apache.kafka.common.utils.AppInfoParser.getVersion(),
                props, values));
        try {
            container.start();
            term.await();
            container.stop(); // finishes the records in hand, commits as the AckMode says, closes the consumer
            h.store.close();
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        Member.Events.line("{\"name\":\"shutdown_complete\"}");
        System.exit(0);
    }
}
