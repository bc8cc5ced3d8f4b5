// Command prosecheck checks that the numbers the prose states about
// published runs match the evidence it cites.
//
// An example (examples/*.md) or an ADR states counts such as "lost 10 of
// 20 in every run" or "in 5 of 11 runs". Each such sentence carries, right
// after it and on the same line as its end, an HTML comment naming the run
// directories (relative to output/, timestamped, never a `latest` copy)
// and the claims, in the language of claim's doc comment:
//
//	... 10 of 20 acknowledged messages lost in every run. <!-- evidence: producer-acks/kafka-4.3.1/20261130T055237Z lost(acks1)=10 per run; acked(acks1)=20 per run -->
//
// A marker never starts a line inside a paragraph: a line that begins with
// an HTML comment ends the paragraph in CommonMark. GitHub and the report
// pages omit the comments, so readers see the prose alone.
//
// Usage:
//
//	prosecheck [-output DIR] [-examples DIR] [-lint] FILE.md...
//
// Besides counts, a marker claims timings between two things of a run and
// how long an ISR held (timing.go), orders of events (order.go), broker
// log lines in so many runs, and the clients' settings in force
// (config.go).
//
// With -lint every number of the prose — counts, durations, releases,
// commits, dates, message ranges — must be written in the marker that
// ends its sentence (among its claims, its directories or their runs'
// provenance), or in a source marker naming where a number no run can
// show comes from (an article, a client's code at a release): the lint
// keeps a number from reaching a reader unchecked (lint.go).
//
// Latencies (the measures p50, p99 and max) are claimed with their unit,
// to the precision the prose writes: max(idem)=15.3s..18.7s holds when the
// fastest run's maximum rounds to 15.3 s and the slowest's to 18.7 s.
//
// A decision record's evidence blocks ("#### Evidence X: ..." down to
// their "- report: [...]" line, pasted from kafkabook evidence) are each
// checked to be, byte for byte, what kafkabook evidence prints now for the
// run their report link names (blocks.go).
//
// With -examples DIR a marker must also cite every published run of each
// cell it cites (a runbook on one release through one client) that ran the
// steps DIR/<runbook>.md has now, and no run of other steps, unless it
// says `subset` before its directories (and the sentence says which runs
// it speaks of): a sentence cannot pick the runs that agree with it
// (cited.go).
//
// It loads each cited results.json with the results package (any schema
// version it reads), evaluates each claim with results.Measures (the
// functions of `expect`), prints file:line: marker: want X, evidence says
// Y for every claim that does not match, and exits 1 when one did not or a
// marker could not be read.
package main
