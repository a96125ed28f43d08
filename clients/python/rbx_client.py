"""Compatibility shim: the client moved to the `rbx` package
(clients/python/rbx, `pip install ./clients/python`, import rbx).
`from rbx_client import Env, ...` keeps working."""

import os
import sys

try:
    from rbx.client import Client, Env, GroupReset, RbxError, ResetFailed, reference_calls, reset_group
except ImportError:  # run from a checkout without the package on sys.path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from rbx.client import Client, Env, GroupReset, RbxError, ResetFailed, reference_calls, reset_group

__all__ = ["Client", "Env", "GroupReset", "RbxError", "ResetFailed", "reference_calls", "reset_group"]
