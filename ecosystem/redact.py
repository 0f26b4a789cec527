"""Keep credentials out of everything the collectors write or print."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

#: environment variables whose values are credentials
SECRET_ENV_VARS = ("GITHUB_TOKEN", "STACK_EXCHANGE_KEY")

# credentials that travel in query strings or headers (Stack Exchange puts the key in the URL)
_SECRET_PARAMS = re.compile(r"(?i)\b(key|access_token|token)=([^&\s'\"]+)")
_AUTH_HEADER = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(bearer|token|basic)?\s*[^\s'\",}]+")

REDACTED = "[redacted]"


def redact(text: str, env: Mapping[str, str] | None = None) -> str:
    """Return ``text`` with credential values, ``key=``/``token=`` parameters and auth headers masked."""
    env = os.environ if env is None else env
    for name in SECRET_ENV_VARS:
        value = env.get(name)
        if value:
            text = text.replace(value, REDACTED)
    text = _SECRET_PARAMS.sub(lambda m: f"{m.group(1)}={REDACTED}", text)
    return _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
