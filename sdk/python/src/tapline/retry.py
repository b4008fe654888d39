"""Which failures the client retries, and how long it waits before each retry."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional

from .errors import TaplineError, retry_after_seconds


@dataclass(frozen=True)
class RetryPolicy:
    """How the client retries: how many times, how long it waits."""

    #: Retries after the first attempt.
    max_retries: int = 3
    #: The first backoff in seconds; it doubles on every retry, with jitter.
    initial_delay: float = 0.5
    #: The longest backoff in seconds.
    max_delay: float = 8.0
    #: A 429 whose Retry-After is longer than this (seconds) is not waited for: the error is raised.
    max_retry_after: float = 60.0


@dataclass(frozen=True)
class RetryEvent:
    """What ``on_retry`` receives before each retry."""

    #: 1 for the first retry.
    attempt: int
    #: Seconds the client waits before it.
    delay: float
    #: The failure of the attempt before (its status and code say what happened).
    error: TaplineError


def backoff(policy: RetryPolicy, retry: int, rand: Callable[[], float] = random.random) -> float:
    """Exponential backoff with "equal jitter": between half and all of the doubled delay."""
    ceiling = min(policy.max_delay, policy.initial_delay * 2**retry)
    return ceiling / 2 + rand() * ceiling / 2


def retry_delay(policy: RetryPolicy, error: TaplineError, retry: int) -> Optional[float]:
    """Seconds to wait before retrying after ``error``, or None when it must not be retried.

    Retried: no answer (the request carries its Idempotency-Key, so a payment that did run is
    answered, not made again), 409 idempotency_in_progress (the first attempt still runs), 429
    after its Retry-After, and 5xx. A locked PIN (429 pin_attempts_exceeded) is never retried:
    sending the same PIN again cannot help.
    """
    status = error.status
    if status is None:
        return backoff(policy, retry)
    if status == 409:
        return backoff(policy, retry) if error.code == "idempotency_in_progress" else None
    if status == 429:
        if error.code == "pin_attempts_exceeded":
            return None
        seconds = retry_after_seconds(error.headers)
        if seconds is None:
            return backoff(policy, retry)
        # A little more than asked: the server's window may end a few milliseconds after ours.
        return None if seconds > policy.max_retry_after else seconds + 0.05
    if status >= 500:
        seconds = retry_after_seconds(error.headers)
        return float(seconds) if seconds is not None and seconds <= policy.max_retry_after else backoff(policy, retry)
    return None
