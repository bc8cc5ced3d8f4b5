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
        HandOff handoff = null;
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
            } else if (spec.commit.equals("before")) {
                // Committing before handling is acknowledge() first, which
                // the manual modes have; MANUAL_IMMEDIATE commits it at once.
                cp.setAckMode(ContainerProperties.AckMode.MANUAL_IMMEDIATE);
            }
            cp.setPollTimeout(100);
            boolean manual = cp.getAckMode() == ContainerProperties.AckMode.MANUAL
                    || cp.getAckMode() == ContainerProperties.AckMode.MANUAL_IMMEDIATE;
            boolean after = spec.commit.equals("after");
            if (spec.handoff) {
                HandOff ho = new HandOff(spec, h, manual && after);
                handoff = ho;
                cp.setMessageListener((AcknowledgingMessageListener<byte[], byte[]>) (ConsumerRecord<byte[], byte[]> r, Acknowledgment ack) -> {
                    // before: acknowledged on the consumer thread as the
                    // record is handed over; after: by the worker once
                    // handled; the other modes: the container commits as
                    // soon as the listener has returned.
                    if (manual && !after && ack != null) {
                        ack.acknowledge();
                    }
                    ho.put(r, ack);
                });
            } else {
                cp.setMessageListener((AcknowledgingMessageListener<byte[], byte[]>) (ConsumerRecord<byte[], byte[]> r, Acknowledgment ack) -> {
                    try {
                        // Where the member commits (before or after), the
                        // listener acknowledges in the manual modes; the
                        // container commits by itself in the others.
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
            }
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
        KafkabookDriver.Who who = SpringProducer.spring();
        Member.Events.line(Member.startupComplete(who.client(), who.library(), who.version(), who.runtime(), props, values));
        try {
            container.start();
            term.await();
            if (handoff != null) {
                // A clean stop finishes what the worker was given: no new
                // records, the worker done, then the container commits
                // what is acknowledged and closes.
                container.pause();
                long until = System.nanoTime() + 30_000_000_000L;
                while (!container.isContainerPaused() && System.nanoTime() < until) {
                    Thread.sleep(10);
                }
                handoff.drain();
            }
            container.stop(); // finishes the records in hand, commits as the AckMode says, closes the consumer
            h.store.close();
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        Member.Events.line("{\"name\":\"shutdown_complete\"}");
        System.exit(0);
    }

    // HandOff is the listener's executor with --handoff: the listener puts
    // each record (with its Acknowledgment) in a queue of at most batch
    // records, waiting while it is full, and returns; one worker thread
    // handles them in order. With the manual ack modes and commit after,
    // the worker calls acknowledge() once a record is handled: Spring
    // queues an acknowledgment made off the consumer thread and the
    // consumer thread commits it (MANUAL_IMMEDIATE wakes its poll to do it
    // at once; MANUAL with the next commit of the loop). One worker
    // acknowledges in offset order, so asyncAcks (out-of-order acks, which
    // also pauses the consumer until a poll's records are all
    // acknowledged) is left off, as an application with a single-threaded
    // executor would.
    static final class HandOff {
        record Job(ConsumerRecord<byte[], byte[]> rec, Acknowledgment ack) {
        }

        final Member.Worker<Job> worker;

        HandOff(Member.MemberSpec spec, Member.Handler h, boolean ackWhenDone) {
            worker = new Member.Worker<>(spec.batch, j -> h.handle(j.rec(), rec -> {
                // handle commits at the start with before (acknowledged by
                // the listener already) and at the end with after: only
                // the latter here.
                if (ackWhenDone && j.ack() != null) {
                    j.ack().acknowledge();
                }
            }));
        }

        void put(ConsumerRecord<byte[], byte[]> r, Acknowledgment ack) {
            try {
                worker.put(new Job(r, ack));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted handing a record over", e);
            }
        }

        // drain waits until the worker has handled every record it was given.
        void drain() throws InterruptedException {
            worker.drain();
        }
    }
}
