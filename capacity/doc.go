// Package capacity is the one budget of live sandboxes a process holds:
// every sandbox alive, whatever it is for — in an episode, warm in a pool,
// staged by the prefix cache, a scratch replay for evidence, being
// recycled, created or removed — holds one slot, so that what rbx holds
// is bounded by the budget and never grows with the size of the input
// (tasks, episodes, steps).
//
// Demand waits in line (first come, first served, a group's slots taken
// together so that two half-served groups never wait on each other);
// background work (warming, staging) only takes a slot when nobody waits.
// When the budget is full, a waiter asks the Evictor to remove idle
// sandboxes (warm or staged) to make room; their slots come back once
// the engine has removed them.
package capacity
