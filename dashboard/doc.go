// Package dashboard is the web dashboard of `rbx serve` at /ui: an
// overview of every task's curriculum (T, strategy, k, phase, pool,
// episodes, resets/s and step latency), per task the three pictures of a
// rollback curriculum drawn as server-rendered SVG (success rate over
// training, the checkpoint served over training, success rate per
// checkpoint with the bottleneck and θ marked), the rollback history and
// stuck flags, and per episode its trajectory step by step with exports.
//
// It reads nothing but the server's own HTTP API, called in-process
// (GET /v1/..., /healthz and /metrics), so it shows what a trainer sees
// and needs no access to the server's internals. Pages work without
// JavaScript; a small embedded script polls a JSON endpoint per page and
// swaps the live fragments in. Assets are embedded: no CDN, no build step.
// See docs/dashboard.md.
package dashboard
