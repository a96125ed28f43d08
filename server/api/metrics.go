package api

// AllTasks is the task (and pool) label of the aggregated series a
// server past its task-series bound (server.WithTaskSeries) reports
// instead of per-task ones. It is a wire value: readers of /metrics (the
// dashboard) match on it.
const AllTasks = "_all"
