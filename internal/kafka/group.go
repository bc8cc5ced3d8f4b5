package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// EventHeader is the record header that carries a message's event id when
// it is not the message id (produce --event-id): the article's eventId.
const EventHeader = "event-id"

// GroupTiming is what kafkabook sets on every group member under test,
// whatever its client, beyond the group and topic it reads: a 6 s session
// with a heartbeat every second, so that a crashed member's partitions go
// to its successor within seconds (the clients' own default session is
// 45 s). The broker's default group.min.session.timeout.ms is 6 s, the
// shortest session it accepts. A member's evidence names both as set by
// kafkabook.
const (
	SessionTimeout    = 6 * time.Second
	HeartbeatInterval = time.Second
)

// MemberSpec is a consumer group member.
type MemberSpec struct {
	Topic, Group string
	// AutoCommit is the interval of franz-go's auto-commit, 0 for none:
	// every AutoCommit, a goroutine of the client commits the offsets of
	// the records returned by the polls before the last one (a poll marks
	// the records of the one before as done, as the Java client's poll
	// does), and once more when the member leaves the group.
	AutoCommit time.Duration
	// Greedy makes the auto-commit commit every record polled so far,
	// processed or not (franz-go's GreedyAutoCommit).
	Greedy bool
	// OnCommit is called after every auto-commit with the offsets it
	// committed (the next offset to read, per partition), or its error.
	OnCommit func(offsets map[int32]int64, err error)
}

// Member is a consumer group member on franz-go's classic group protocol,
// reading from the earliest offset when the group has none committed.
type Member struct {
	cl    *kgo.Client
	topic string
}

// Delivered is one record a poll handed over.
type Delivered struct {
	Partition int32
	Offset    int64
	Key       string
	ID        string // the message id the value starts with
	Event     string // the event-id header, "" when absent
}

// JoinGroup creates the member; it joins when first polled.
func JoinGroup(b Brokers, spec MemberSpec) (*Member, error) {
	cl, err := kgo.NewClient(memberOpts(b, spec)...)
	if err != nil {
		return nil, err
	}
	return &Member{cl: cl, topic: spec.Topic}, nil
}

// memberOpts are a member's options: where the cluster is (subjectOpts),
// its group and topic, read from the start when the group has no offset
// (franz-go's default too, and the Java member's auto.offset.reset), the
// group timing every member gets (SessionTimeout), and the commits the
// step asks for. Everything else is franz-go's default.
func memberOpts(b Brokers, spec MemberSpec) []kgo.Opt {
	opts := append(subjectOpts(b),
		kgo.ConsumerGroup(spec.Group),
		kgo.ConsumeTopics(spec.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(SessionTimeout),
		kgo.HeartbeatInterval(HeartbeatInterval),
	)
	if spec.AutoCommit <= 0 {
		return append(opts, kgo.DisableAutoCommit())
	}
	opts = append(opts, kgo.AutoCommitInterval(spec.AutoCommit))
	if spec.Greedy {
		opts = append(opts, kgo.GreedyAutoCommit())
	}
	if spec.OnCommit != nil {
		opts = append(opts, kgo.AutoCommitCallback(func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			spec.OnCommit(committedOffsets(req, resp), err)
		}))
	}
	return opts
}

// Poll waits for records and returns at most max of them; ctx ending
// returns nil. A fatal error of the client (the group is gone, the client
// closed) is returned.
func (m *Member) Poll(ctx context.Context, max int) ([]Delivered, error) {
	fs := m.cl.PollRecords(ctx, max)
	errs, err := pollErrors(fs)
	if err != nil {
		return nil, err
	}
	var out []Delivered
	fs.EachRecord(func(r *kgo.Record) {
		d := Delivered{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), ID: string(IDOf(r.Value))}
		for _, h := range r.Headers {
			if h.Key == EventHeader {
				d.Event = string(h.Value)
			}
		}
		out = append(out, d)
	})
	if len(out) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// pollErrors are the errors of a poll's fetches, less those of its
// context ending; an error when the client was closed.
func pollErrors(fs kgo.Fetches) ([]error, error) {
	if fs.IsClientClosed() {
		return nil, errors.New("the client is closed")
	}
	var errs []error
	fs.EachError(func(t string, p int32, err error) {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, fmt.Errorf("fetching %s partition %d: %w", t, p, err))
		}
	})
	return errs, nil
}

// Commit commits the offset after d synchronously: the group will resume
// at d.Offset+1 on d's partition.
func (m *Member) Commit(ctx context.Context, d Delivered) error {
	var err error
	m.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{
		m.topic: {d.Partition: {Epoch: -1, Offset: d.Offset + 1}},
	}, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, cerr error) {
		if cerr != nil {
			err = cerr
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
					err = fmt.Errorf("committing %s partition %d offset %d: %w", t.Topic, p.Partition, d.Offset+1, e)
				}
			}
		}
	})
	return err
}

// Close leaves the group (committing first when auto-committing, as
// franz-go does) and closes the client.
func (m *Member) Close() { m.cl.Close() }

func committedOffsets(req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse) map[int32]int64 {
	out := map[int32]int64{}
	if req == nil || resp == nil {
		return out
	}
	ok := map[int32]bool{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			ok[p.Partition] = p.ErrorCode == 0
		}
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if ok[p.Partition] {
				out[p.Partition] = p.Offset
			}
		}
	}
	return out
}

// Committed returns the group's committed offset of every partition of the
// topic, as the group coordinator has it (OffsetFetch, the AdminClient's
// listConsumerGroupOffsets); a partition without one is absent. It asks as
// a successor's KafkaConsumer does, with require_stable: the coordinator
// answers from its latest state, and holds back (UNSTABLE_OFFSET_COMMIT)
// a partition with a transactional commit still pending, which is asked
// again every unstableRetry until ctx ends.
func (c *Client) Committed(ctx context.Context, group, topic string) (map[int32]int64, error) {
	adm := kadm.NewClient(c.cl)
	for {
		resp, err := adm.FetchOffsets(kadm.RequireStable(ctx), group)
		if err == nil && !unstableOffsets(resp) {
			err = resp.Error()
			if err == nil {
				out := map[int32]int64{}
				for p, o := range resp[topic] {
					if o.At >= 0 {
						out[p] = o.At
					}
				}
				return out, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("committed offsets of group %s: %w", group, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("committed offsets of group %s: a transactional commit still pending: %w", group, ctx.Err())
		case <-time.After(unstableRetry):
		}
	}
}

// unstableOffsets tells whether the coordinator held back a partition's
// offset for a pending transactional commit.
func unstableOffsets(resp kadm.OffsetResponses) bool {
	for _, ps := range resp {
		for _, o := range ps {
			if errors.Is(o.Err, kerr.UnstableOffsetCommit) {
				return true
			}
		}
	}
	return false
}

// unstableRetry is how soon a partition held back by a pending
// transactional commit is asked again: the Java client's retry.backoff.ms.
const unstableRetry = 100 * time.Millisecond

// EndOffsets returns the high watermark of every partition of the topic.
func (c *Client) EndOffsets(ctx context.Context, topic string) (map[int32]int64, error) {
	return endOffsets(ctx, kadm.NewClient(c.cl), topic)
}
