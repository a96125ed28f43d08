"""rbx-client: the Python client of `rbx serve` (standard library only).

    from rbx import Client, Env, AsyncClient, AsyncEnv, RbxError, ResetFailed

Client / Env: synchronous (urllib), Gymnasium's signatures.
AsyncClient / AsyncEnv: asyncio, pooled keep-alive connections, bounded
concurrency. rbx.trl and rbx.skyrl adapt an episode to TRL's
environment_factory and SkyRL's BaseTextEnv (imported on demand). See
docs/trainers.md.
"""

from ._common import RbxError, ResetFailed, reference_calls
from ._version import __version__
from .aio import AsyncClient, AsyncEnv
from .aio import reset_group as async_reset_group
from .client import Client, Env, GroupReset, reset_group

__all__ = [
    "AsyncClient",
    "AsyncEnv",
    "Client",
    "Env",
    "GroupReset",
    "RbxError",
    "ResetFailed",
    "__version__",
    "async_reset_group",
    "reference_calls",
    "reset_group",
]
