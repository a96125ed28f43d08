package depsprobe

import (
	_ "github.com/docker/docker/api/types/container"
	_ "github.com/docker/docker/client"
	_ "github.com/docker/docker/pkg/stdcopy"
	_ "github.com/goccy/go-yaml"
	_ "github.com/hashicorp/go-retryablehttp"
	_ "github.com/spf13/cobra"
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/sync/errgroup"
)
