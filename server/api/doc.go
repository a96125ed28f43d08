// Package api holds the serve API's wire types: the requests, responses,
// error codes and states as they travel over HTTP (/v1). It imports
// nothing of the implementation (no journal, metrics, reset or prefix
// cache), so a client of a running server — server/client, rollout,
// intervene, the dashboard — builds without linking the server itself.
// Package server keeps aliases of these names for its own code.
package api
