"""Where an IMAP password (or OAuth access token) comes from. It is held in memory for the
run and handed to the server, nowhere else: never to the store, the report, a log line or
an error message.

In order: the output of a password command (`--password-command "pass show mail"`, or
`imap.password_command`), `$BRAINQUERY_IMAP_PASSWORD`, the account's `~/.netrc` entry, a
prompt on a terminal.
"""
from __future__ import annotations

import dataclasses
import getpass
import netrc
import os
import subprocess
from typing import Callable

from .imap_url import AUTH_XOAUTH2, Account

PASSWORD_ENV = "BRAINQUERY_IMAP_PASSWORD"


class ImapError(Exception):
    """An IMAP account or folder could not be read; the message says which and why (and
    never holds a credential)."""


class ImapAuthError(ImapError):
    """No password, a failing password command, or a login the server refused: nothing of
    that account can be read."""


@dataclasses.dataclass(frozen=True)
class Secrets:
    """`password_command`: a shell command whose first output line is the secret.
    `prompt`: ask on the terminal when nothing else gives one (the CLI on a tty)."""

    password_command: str = ""
    command_timeout: float = 60.0
    prompt: bool = False
    ask: Callable[[str], str] = getpass.getpass

    def secret_for(self, account: Account) -> str:
        kind = "access token" if account.auth == AUTH_XOAUTH2 else "password"
        for source in (self._from_command, self._from_env, self._from_netrc, self._from_prompt):
            secret = source(account, kind)
            if secret:
                return secret
        raise ImapAuthError(f"{account.url}: no {kind}: give --password-command, set "
                            f"${PASSWORD_ENV}, or add the host to ~/.netrc")

    def _from_command(self, account: Account, kind: str) -> str:
        if not self.password_command:
            return ""
        try:
            # A shell command line, as mbsync's PassCmd and msmtp's passwordeval take it.
            done = subprocess.run(self.password_command, shell=True, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, timeout=self.command_timeout, check=False)
        except subprocess.TimeoutExpired as err:
            raise ImapAuthError(f"{account.url}: the password command gave no {kind} within "
                                f"{self.command_timeout:g} s") from err
        except OSError as err:
            raise ImapAuthError(f"{account.url}: the password command could not run: "
                                f"{err.strerror or err}") from err
        # Its output is the secret: never quoted in an error, whatever it holds.
        if done.returncode != 0:
            raise ImapAuthError(f"{account.url}: the password command failed (exit {done.returncode})")
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        secret = lines[0].strip() if lines else ""
        if not secret:
            raise ImapAuthError(f"{account.url}: the password command printed no {kind}")
        return secret

    def _from_env(self, account: Account, kind: str) -> str:
        return os.environ.get(PASSWORD_ENV, "")

    def _from_netrc(self, account: Account, kind: str) -> str:
        try:
            entry = netrc.netrc().authenticators(account.host)
        except (FileNotFoundError, OSError):
            return ""
        except netrc.NetrcParseError as err:
            # The parser's message names the file and line, not the tokens it read.
            raise ImapAuthError(f"~/.netrc cannot be read: {err.msg} (line {err.lineno})") from err
        if entry is None:
            return ""
        login, _, password = entry
        return password if not login or login == account.user else ""

    def _from_prompt(self, account: Account, kind: str) -> str:
        if not self.prompt:
            return ""
        try:
            return self.ask(f"IMAP {kind} for {account.url}: ")
        except (EOFError, KeyboardInterrupt):
            return ""
