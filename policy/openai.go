package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/rbx-sandbox/rbx/trajectory/chat"
)

// OpenAI is an agent loop against an OpenAI-compatible chat-completions
// endpoint (OpenAI, vLLM, SGLang...): the chat is prefilled with the prefix
// messages up to k, the task's actions are offered as tools, and the
// episode ends when the model calls submit, after the step limit, or when
// the episode's context expires.
type OpenAI struct {
	cfg openaiConfig
}

type openaiConfig struct {
	baseURL     string
	model       string
	apiKey      string
	maxSteps    int
	temperature *float64
	http        *retryablehttp.Client
	log         *slog.Logger
}

// OpenAIOption configures the openai policy.
type OpenAIOption func(*openaiConfig) error

// WithAPIKey sets the bearer token (default: none, for local servers).
func WithAPIKey(key string) OpenAIOption {
	return func(c *openaiConfig) error { c.apiKey = key; return nil }
}

// WithMaxSteps bounds the tool calls of an episode, malformed ones and
// replies without a tool call included (default 30).
func WithMaxSteps(n int) OpenAIOption {
	return func(c *openaiConfig) error {
		if n < 1 {
			return fmt.Errorf("max steps %d: expected ≥ 1", n)
		}
		c.maxSteps = n
		return nil
	}
}

// WithTemperature sets the sampling temperature (default: the server's).
func WithTemperature(t float64) OpenAIOption {
	return func(c *openaiConfig) error { c.temperature = &t; return nil }
}

// WithHTTPClient replaces the HTTP client (default: NewHTTPClient(3, 500ms,
// 8s, 120s)).
func WithHTTPClient(h *retryablehttp.Client) OpenAIOption {
	return func(c *openaiConfig) error { c.http = h; return nil }
}

// WithOpenAILogger sets the logger (default: discard).
func WithOpenAILogger(l *slog.Logger) OpenAIOption {
	return func(c *openaiConfig) error { c.log = l; return nil }
}

// NewHTTPClient returns the client the openai policy uses: server errors
// (5xx, 429) and transport errors, timeouts included, are retried up to
// retries times with exponential backoff between waitMin and waitMax; each
// attempt is bounded by timeout.
func NewHTTPClient(retries int, waitMin, waitMax, timeout time.Duration) *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.RetryMax, c.RetryWaitMin, c.RetryWaitMax = retries, waitMin, waitMax
	c.HTTPClient.Timeout = timeout
	c.Logger = nil
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return c
}

// NewOpenAI returns the policy for the endpoint at baseURL (up to /v1, as
// in OpenAI clients: requests go to baseURL + "/chat/completions").
func NewOpenAI(baseURL, model string, opts ...OpenAIOption) (*OpenAI, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: expected an http(s) URL such as http://127.0.0.1:8000/v1", baseURL)
	}
	if model == "" {
		return nil, errors.New("model: required (the name the server serves)")
	}
	cfg := openaiConfig{baseURL: strings.TrimRight(baseURL, "/"), model: model, maxSteps: 30,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.http == nil {
		cfg.http = NewHTTPClient(3, 500*time.Millisecond, 8*time.Second, 120*time.Second)
	}
	return &OpenAI{cfg: cfg}, nil
}

// Name returns "openai".
func (o *OpenAI) Name() string { return "openai" }

// Start prefills the chat with the prefix messages at k, then the
// episode's actions so far (with their live observations); an intervener
// also gets the Intervention's prompt as a user message.
func (o *OpenAI) Start(_ context.Context, ep Episode) (Agent, error) {
	msgs, err := PrefixMessages(ep)
	if err != nil {
		return nil, err
	}
	for i, s := range ep.Actions {
		live := ""
		if s.Observation != nil {
			live = chat.ObservationText(*s.Observation)
		}
		m, err := chat.LiveMessages(s, ep.K+i, live)
		if err != nil {
			return nil, fmt.Errorf("episode messages: action %d: %w", i, err)
		}
		msgs = append(msgs, m...)
	}
	if ep.Intervention != nil {
		msgs = append(msgs, mustMessage(chatMessage{Role: "user", Content: ptr(ep.Intervention.Prompt())}))
	}
	tools, err := json.Marshal(Tools())
	if err != nil {
		return nil, err
	}
	return &chatAgent{cfg: &o.cfg, messages: msgs, tools: tools}, nil
}
