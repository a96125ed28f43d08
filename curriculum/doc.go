// Package curriculum schedules the checkpoint each episode of a task starts
// from (docs/curriculum.md): a per-task state machine with Next(task) → (k,
// purpose) and Observe(task, k, success), for the seed's four rollback
// strategies — Sequential, Heuristic Sequential, Parallel and Search-Learn.
//
// The engine never blocks on containers: Next and Observe only update small
// in-memory counters under a per-task lock. An optional Recorder makes every
// acknowledged outcome durable before Observe returns (see curriculum/store),
// and Restore rebuilds the exact state from the stored outcomes, because
// every state transition is a function of the outcome sequence alone.
package curriculum
