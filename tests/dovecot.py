"""A real IMAP server for tests and benchmarks: Debian's dovecot (`dovecot-imapd`), run
from a configuration of its own in a temporary folder — its own base and state folders,
a passwd-file of test users, Maildirs, a listener on a free loopback port — and, for the
TLS variant, a throw-away CA and server certificate the client trusts by file.

`Dovecot.start()` raises DovecotUnavailable when the binary is missing or the server does
not come up; the tests skip on it.
"""
from __future__ import annotations

import datetime as dt
import imaplib
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "Tr0ub4dor&3-horse-battery"
USERS = 100                   # mailboxes ready for tests to take, one each
START_SECONDS = 15.0          # dovecot is up in well under a second; a slow CI box gets slack


class DovecotUnavailable(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Dovecot:
    """One server. `tls`: STARTTLS on `port` and TLS on `tls_port`, with `ca_file` its CA."""

    def __init__(self, tls: bool = False):
        self.tls = tls
        # Unix sockets live under base_dir: a short path, not pytest's deep tmp folders.
        self.root = Path(tempfile.mkdtemp(prefix="bq-dovecot-"))
        self.port = free_port()
        self.tls_port = free_port() if tls else 0
        self.ca_file = str(self.root / "ca.pem") if tls else ""
        self._proc: subprocess.Popen | None = None
        self._free: list[str] = []
        me = pwd.getpwuid(os.getuid())
        if os.getuid() == 0:
            # Dovecot runs no login or mail process as root: use its own accounts when the
            # package made them, and nobody's uid for the mail.
            self._login_user = _first_user("dovenull", "nobody")
            self._internal_user = _first_user("dovecot", "nobody")
            mail = pwd.getpwnam("nobody")
            self._mail_ids = (mail.pw_uid, mail.pw_gid)
        else:
            self._login_user = self._internal_user = me.pw_name
            self._mail_ids = (me.pw_uid, me.pw_gid)

    # ---- life -------------------------------------------------------------------------
    def start(self) -> "Dovecot":
        binary = shutil.which("dovecot") or ("/usr/sbin/dovecot" if os.path.exists("/usr/sbin/dovecot") else None)
        if binary is None:
            raise DovecotUnavailable("dovecot is not installed (apt-get install dovecot-imapd)")
        os.chmod(self.root, 0o755)  # dovecot's auth and mail processes run as other users
        for sub in ("run", "state", "home"):
            (self.root / sub).mkdir()
        os.chown(self.root / "home", *self._mail_ids)
        self._write_users()
        if self.tls:
            _write_certificates(self.root)
        (self.root / "dovecot.conf").write_text(self._config())
        self._proc = subprocess.Popen([binary, "-F", "-c", str(self.root / "dovecot.conf")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode("utf-8", "replace").strip()
                self._cleanup()
                raise DovecotUnavailable(f"dovecot exited: {err or self.log()[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    if sock.recv(64).startswith(b"* OK"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise DovecotUnavailable("dovecot did not answer within "
                                 f"{START_SECONDS:g} s: {self.log()[-500:]}")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        try:
            return (self.root / "dovecot.log").read_text(errors="replace")
        except OSError:
            return ""

    # ---- users and mail ---------------------------------------------------------------
    def new_user(self) -> str:
        """A user nobody has used yet, with an empty INBOX. The users are written before
        the server starts: dovecot looks at a changed passwd-file at most once a second."""
        if not self._free:
            raise RuntimeError(f"all {USERS} test users are taken")
        return self._free.pop(0)

    def _write_users(self) -> None:
        uid, gid = self._mail_ids
        self._free = [f"user{n:03d}" for n in range(USERS)]
        (self.root / "passwd").write_text("".join(
            f"{name}:{{PLAIN}}{PASSWORD}:{uid}:{gid}::{self.root / 'home' / name}::\n"
            for name in self._free))

    def client(self, user: str, password: str = PASSWORD) -> imaplib.IMAP4:
        """The test's own connection (to put mail in, and to look at flags)."""
        conn = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        conn.login(user, password)
        return conn

    def append(self, user: str, raw: bytes, folder: str = "INBOX", flags: str = "",
               when: dt.datetime | None = None) -> int:
        """Deliver `raw` into `folder` (created when missing); returns its UID."""
        conn = self.client(user)
        try:
            conn.create(folder)  # NO when it exists: fine
            stamp = imaplib.Time2Internaldate(when) if when else None
            typ, data = conn.append(folder, f"({flags})" if flags else None, stamp, raw)
            assert typ == "OK", data
            return int(data[0].split(b"APPENDUID ", 1)[1].split()[1].rstrip(b"]"))
        finally:
            conn.logout()

    def url(self, user: str, folder: str = "INBOX", scheme: str = "imap", port: int | None = None,
            host: str = "127.0.0.1") -> str:
        return f"{scheme}://{user}@{host}:{port or self.port}/{folder}"

    # ---- configuration ----------------------------------------------------------------
    def _config(self) -> str:
        root = self.root
        tls = f"""
ssl = yes
ssl_cert = <{root / 'server.pem'}
ssl_key = <{root / 'server.key'}
""" if self.tls else "ssl = no\n"
        imaps = f"""  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.tls_port}
    ssl = yes
  }}""" if self.tls else """  inet_listener imaps {
    port = 0
  }"""
        return f"""# A throw-away test server: everything lives under {root}.
protocols = imap
listen = 127.0.0.1
base_dir = {root / 'run'}
state_dir = {root / 'state'}
log_path = {root / 'dovecot.log'}
info_log_path = {root / 'dovecot.log'}
{tls}
# Plaintext passwords only where the connection is secured; dovecot counts loopback as such.
disable_plaintext_auth = yes
auth_mechanisms = plain login xoauth2
auth_failure_delay = 0
default_internal_user = {self._internal_user}
default_login_user = {self._login_user}
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root / 'passwd'}
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root / 'passwd'}
}}
mail_location = maildir:~/Maildir
# A throw-away server: no waiting on the disk for every delivered message.
mail_fsync = never
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
{imaps}
}}
service anvil {{
  chroot =
}}
"""


def _first_user(*names: str) -> str:
    for name in names:
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise DovecotUnavailable(f"none of the users {', '.join(names)} exists")


def _write_certificates(root: Path) -> None:
    """A CA and a server certificate for localhost / 127.0.0.1 signed by it."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Brain Query test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    (root / "ca.pem").write_bytes(ca.public_bytes(pem))
    (root / "server.pem").write_bytes(cert.public_bytes(pem))
    (root / "server.key").write_bytes(key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    os.chmod(root / "server.key", 0o600)


def trusting(ca_file: str) -> ssl.SSLContext:
    """A client context that trusts only the test CA (for the test's own connections)."""
    return ssl.create_default_context(cafile=ca_file)
