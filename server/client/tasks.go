package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"

	"github.com/rbx-sandbox/rbx/server/api"
)

// ListOptions page and filter a task listing (GET /v1/tasks and GET
// /v1/curriculum); the zero value asks for the first page of every task.
type ListOptions struct {
	Limit  int    // tasks per page; 0: the server's default (100), at most 1000
	Cursor string // a page's NextCursor: the page after it
	Phase  string // only tasks in this curriculum phase (curriculum.Phases)
	Q      string // only tasks whose id contains Q
}

func (o ListOptions) query() string {
	v := url.Values{}
	if o.Limit > 0 {
		v.Set("limit", strconv.Itoa(o.Limit))
	}
	for k, s := range map[string]string{"cursor": o.Cursor, "phase": o.Phase, "q": o.Q} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// TaskPage is one page of GET /v1/tasks: its tasks, how many match the
// filter, the next page's cursor ("" on the last) and counts per phase.
type TaskPage struct {
	Tasks []api.TaskSummary `json:"tasks"`
	api.Page
}

// TaskPage returns one page of the served tasks.
func (c *Client) TaskPage(ctx context.Context, o ListOptions) (*TaskPage, error) {
	var out TaskPage
	return &out, c.get(ctx, "/v1/tasks"+o.query(), &out)
}

// EachTask yields every task matching o, from o.Cursor on, fetching a
// page at a time; it stops at the first error, which it yields.
func (c *Client) EachTask(ctx context.Context, o ListOptions) iter.Seq2[api.TaskSummary, error] {
	return func(yield func(api.TaskSummary, error) bool) {
		for {
			p, err := c.TaskPage(ctx, o)
			if err != nil {
				yield(api.TaskSummary{}, err)
				return
			}
			for _, ts := range p.Tasks {
				if !yield(ts, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			o.Cursor = p.NextCursor
		}
	}
}

// Tasks lists every served task, a page of 1000 at a time.
func (c *Client) Tasks(ctx context.Context) ([]api.TaskSummary, error) {
	var out []api.TaskSummary
	for ts, err := range c.EachTask(ctx, ListOptions{Limit: 1000}) {
		if err != nil {
			return nil, err
		}
		out = append(out, ts)
	}
	return out, nil
}
