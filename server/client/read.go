package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Task describes one served task (an *api.APIError with code
// unknown_task when there is none).
func (c *Client) Task(ctx context.Context, id string) (*api.TaskSummary, error) {
	var out api.TaskSummary
	return &out, c.get(ctx, "/v1/tasks/"+url.PathEscape(id), &out)
}

// Reference returns version v of a task's reference trajectory.
func (c *Client) Reference(ctx context.Context, task string, v int) (*trajectory.Trajectory, error) {
	var out trajectory.Trajectory
	return &out, c.get(ctx, fmt.Sprintf("/v1/tasks/%s/references/%d", url.PathEscape(task), v), &out)
}

// get decodes the answer of GET path into out; an error response is a
// *api.APIError.
func (c *Client) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: read: %w", path, err)
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("GET %s: %w", path, apiError(resp, data))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("GET %s: decode: %w", path, err)
	}
	return nil
}
