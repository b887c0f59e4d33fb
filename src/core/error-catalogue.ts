import type { StorErrorKind } from './errors.js';

/**
 * Every error code stor itself raises (the appliance's own errors are RpcErrors and keep the
 * appliance's errnames). The code is what `--json` prints and scripts switch on, so a code, once
 * here, keeps its value; the kind decides the exit code (`EXIT_FOR_KIND`); `meaning` and `remedy`
 * are docs/ERRORS.md's "Error codes" table, word for word (`node scripts/error-table.mjs` writes it; test/core/error-catalogue.test.ts holds
 * them together). Texts avoid `|`, which would split that table's cells.
 */
const CATALOGUE = {
  // exit 1: the operation failed
  ADMIN_KEY_MISSING: {
    kind: 'failed',
    meaning: "the embedded appliance's administrator key file is missing or unreadable",
    remedy: 'restore the file under `$STOR_HOME`, or use another key with `STOR_API_KEY`',
  },
  BUILTIN_GROUP: {
    kind: 'failed',
    meaning:
      "the group is one of the appliance's built-in groups, which it never deletes (25.10.1 refuses with EACCES, which is not a missing role); nothing was changed",
    remedy: 'none: built-in groups stay (`stor group list` marks them); delete the groups you made',
  },
  CONFIG_UNREADABLE: {
    kind: 'failed',
    meaning: 'the profiles file cannot be read or parsed',
    remedy: 'fix or remove the file (in `$STOR_CONFIG_DIR`), then `stor login` again',
  },
  CONFIG_UNWRITABLE: {
    kind: 'failed',
    meaning:
      "the profiles directory is in another user's home (root run with that user's HOME, `sudo -E`): stor writes nothing there",
    remedy:
      'run stor as that user, or with your own HOME (`sudo -H`), or point `STOR_CONFIG_DIR` (or `XDG_CONFIG_HOME`) at a directory of your own',
  },
  DECLINED: {
    kind: 'failed',
    meaning: 'you answered no at a confirmation prompt; nothing was changed',
    remedy: 'run again and confirm, or use `--dry-run` to see what would change',
  },
  DOWNLOAD_REFUSED: {
    kind: 'failed',
    meaning:
      "the appliance's /_download/ endpoint refused the download URL (HTTP 401, 404 or 410: used, expired or unknown)",
    remedy: 'start the download again; a download URL serves one GET, within a minute of being issued',
  },
  DOWNLOAD_SIZE_MISMATCH: {
    kind: 'failed',
    meaning:
      'a download brought another number of bytes than the appliance reported for the file; nothing was written locally',
    remedy: 'the file may have changed meanwhile: download it again',
  },
  GROUP_IN_USE: {
    kind: 'failed',
    meaning:
      'a privilege uses the group, so the appliance will not delete it (25.10.1 refuses with EACCES, which is not a missing role); nothing was changed',
    remedy:
      'take the group out of the privilege the message names (`stor privilege update NAME --groups ...` replaces its list), then delete the group',
  },
  EXISTS_DIFFERENTLY: {
    kind: 'failed',
    meaning:
      'with `--exist-ok`, the object is there but not as asked (the message names the fields that differ, as `field: there → asked`); nothing was changed',
    remedy: 'change it with the update verb the hint names (`stor share update nfs:3 …`), or ask for what is there',
  },
  INTERNAL: {
    kind: 'internal',
    meaning: 'an unexpected error: a bug in stor',
    remedy: 'report it with the command you ran and its output',
  },
  JOB_ABORTED: {
    kind: 'failed',
    meaning: 'the appliance job doing the work was aborted',
    remedy: 'check the target (`stor stat`, `stor ls`) and run the command again',
  },
  JOB_NOT_FOUND: {
    kind: 'failed',
    meaning:
      'the appliance no longer knows a job stor was waiting on, so its outcome is unknown (a job id that was never there is `NOT_FOUND`)',
    remedy:
      '`stor job list` shows the jobs it keeps; after an upload, check the target with `stor stat` before trying again',
  },
  LISTEN_FAILED: {
    kind: 'failed',
    meaning:
      '`stor serve` cannot listen on the host and port asked for (in use, not permitted or not an address of this machine)',
    remedy:
      'the message says why and where; `--port 0` picks a free port (printed), or pick another `--port` or `--host`, or stop what holds the port',
  },
  LOCAL_WRITE_FAILED: {
    kind: 'failed',
    meaning:
      'a download cannot write its local file (directory missing, not permitted, disk full); no partial file is left',
    remedy: 'check that the directory exists, is writable and has space',
  },
  METHOD_NOT_FOUND: {
    kind: 'failed',
    meaning:
      '`stor call` or `stor privilege suggest --methods` named a method the target does not have (or, for `suggest`, does not list for this login)',
    remedy: '`stor call --help` lists the methods of the target',
  },
  NOT_FOUND: {
    kind: 'failed',
    meaning:
      'what the command names does not exist: a user, group, privilege, API key, profile, job, dataset, snapshot, share or path (the message says which); replaces `UNKNOWN_USER`, `UNKNOWN_GROUP`, `UNKNOWN_PROFILE` (exit 2), `PRIVILEGE_NOT_FOUND`, `API_KEY_NOT_FOUND`, and `JOB_NOT_FOUND` from `job show`',
    remedy:
      'the hint names the list that shows what there is; a delete re-run by a script takes `--ignore-not-found` (exit 0)',
  },
  NOT_ATTEMPTED: {
    kind: 'failed',
    meaning: 'with `--targets`, a change was not started on this target because an earlier target failed',
    remedy: 'fix what failed and run it again (targets already changed report what they did), or add `--keep-going`',
  },
  PLAN_CHANGED: {
    kind: 'failed',
    meaning:
      'the target changed between the plan you confirmed (or saved with `stor plan --out`) and the change (the details name what is new); nothing was changed',
    remedy: 'review the new plan with `--dry-run` (or make a new saved plan), then run the command again',
  },
  PLAN_REFUSED: {
    kind: 'failed',
    meaning:
      'the desired-state plan would leave no unlocked, password-enabled administrator, take roles from the identity stor is using, or delete the API key it logs in with; nothing was changed',
    remedy:
      'change the state file so an administrator remains and your own roles are kept, or `--force` if that is what you want',
  },
  ROLE_LIST_LOCKS_OUT: {
    kind: 'failed',
    meaning: "the role list would lock the privilege's users out at login on this target",
    remedy: 'drop the roles the error names (`stor privilege check` explains them), or `--force` to save it anyway',
  },
  SESSION_DIR_UNSAFE: {
    kind: 'failed',
    meaning:
      "the session agent's directory or socket is not private: not a directory of this user's (a symbolic link, another owner) or open to group or others",
    remedy:
      'remove it (it holds nothing but the socket) and run the command again, or make it yours with mode 0700 (`chmod 700`); `STOR_SESSION=off` runs without the agent',
  },
  SIZE_MISMATCH: {
    kind: 'failed',
    meaning:
      'an uploaded file has another size on the appliance than was sent, or the local file changed size while it was read (the upload was cut off)',
    remedy:
      'upload it again once nothing writes to the local file; if it persists, check the space and health of the pool',
  },
  SQLITE_BINDING_MISSING: {
    kind: 'failed',
    meaning:
      'this Node.js has no node:sqlite (Node 20), and better-sqlite3, the optional dependency stor uses there, is not installed (an install without optional dependencies, or one whose build failed)',
    remedy:
      'reinstall with optional dependencies (`npm ci`, not `--omit=optional`) where better-sqlite3 can be built, or run stor on Node.js 22.13 or newer',
  },
  STATE_UNWRITABLE: {
    kind: 'failed',
    meaning: "the embedded appliance's state directory cannot be written (read-only, full or not permitted)",
    remedy: 'point `STOR_HOME` (or `stor serve --state`) at a writable directory with free space',
  },
  TREE_TOO_LARGE: {
    kind: 'failed',
    meaning:
      '`download -r` found more than 100,000 files and directories under the remote directory; nothing was written',
    remedy: 'download its subdirectories one at a time',
  },
  UPLOAD_REFUSED: {
    kind: 'failed',
    meaning: 'the appliance refused the upload with an HTTP status other than 401, 403 or 429',
    remedy: 'read the status and body in the message; check the target path and try again',
  },
  USER_WITHOUT_ROLES: {
    kind: 'failed',
    meaning: 'the appliance will not create an API key for a user that no privilege grants roles to',
    remedy:
      "bind a privilege with roles to one of the user's groups (the message names them): `stor privilege update NAME --groups GROUP` or `stor privilege create NAME --groups GROUP --roles ROLE`",
  },
  VERIFY_FAILED: {
    kind: 'failed',
    meaning:
      '`privilege fix` wrote a role list, `dataset update` properties, or `service start`, `stop`, `enable` or `disable` a state, that do not read back as written',
    remedy:
      'another administrator may be editing it: `stor privilege show` (`stor dataset show`, `stor service list`), then try again',
  },

  // exit 2: the command line is wrong
  AMBIGUOUS_NAME: {
    kind: 'usage',
    meaning: 'several items have the name given (the message lists their ids)',
    remedy: 'name the one you mean by its id',
  },
  BAD_DATASET: {
    kind: 'usage',
    meaning: 'the argument is not a dataset name or mountpoint',
    remedy: 'give e.g. `tank/projects` or `/mnt/tank/projects`',
  },
  BAD_STATE_FILE: {
    kind: 'usage',
    meaning:
      'the desired-state file is not valid YAML or JSON, or does not follow the format (the message names the path)',
    remedy:
      'correct the file; `schema/stor-state.schema.json` in the package describes it, and `stor export` writes a valid one',
  },
  BAD_KEEPALIVE: {
    kind: 'usage',
    meaning: '`STOR_WS_KEEPALIVE` is not a number of seconds',
    remedy: 'set it to a number of seconds, or 0 for no pings',
  },
  BAD_MODE: {
    kind: 'usage',
    meaning:
      '`--mode` (or the MODE of `chmod`) is not a permission mode, or is decimal above 511 (special bits need octal); `chmod` reads MODE as octal and refuses two bare digits (`77`) and numbers with an 8 or 9 (`488`) as ambiguous',
    remedy:
      'write it in octal (`--mode 0644`, `chmod 750`) or decimal (`--mode 420`); setuid, setgid and sticky only in octal (`04755`)',
  },
  BAD_PROFILE_FILE: {
    kind: 'usage',
    meaning:
      'the file given to `stor profile import` cannot be read, is not a YAML or JSON list of profiles nor an Ansible inventory, or an entry or host in it is wrong; nothing was saved',
    remedy:
      'fix the entry or host the message names (each needs name, url, and key_file or key_stdin; an inventory host stor_url and stor_key_file or stor_key_stdin)',
  },
  BAD_REQUIRE_TARGET: {
    kind: 'usage',
    meaning: '`STOR_REQUIRE_TARGET` is none of 1, 0, on, off, true, false, yes, no',
    remedy:
      'set it to 1 to refuse changes no target was chosen for, 0 to make them on the embedded appliance without a word, or unset it',
  },
  BAD_SESSION_SETTING: {
    kind: 'usage',
    meaning: '`STOR_SESSION` is none of on, off, 1, 0, true, false, yes, no',
    remedy: 'set it to `off` to run without the session agent, or unset it',
  },
  BAD_SNAPSHOT: {
    kind: 'usage',
    meaning: 'the argument is not a snapshot name DATASET@NAME',
    remedy: 'give e.g. `tank/projects@before-upgrade`',
  },
  BAD_TARGETS: {
    kind: 'usage',
    meaning:
      'a `--targets` list cannot be read, names no target, a profile that is not saved (`--targets nas9`; `--profile nas9` is `NOT_FOUND`) or a tag no profile carries; or the command, the `call` method (not a read) or its standard input (read once) cannot go to several targets',
    remedy:
      'give profile names, ranges (`nas[1-3]`), tags (`@prod`) or `all` (`stor profile list` shows names and tags); run what cannot fan out with `--profile`, one target at a time',
  },
  BAD_URL: {
    kind: 'usage',
    meaning: 'the URL does not parse, or its scheme is not `wss`, `https`, `ws` or `http`',
    remedy: 'use e.g. `wss://nas.example.com`',
  },
  CA_INVALID: {
    kind: 'usage',
    meaning: 'the `--ca` file holds no usable PEM certificate',
    remedy: 'give the PEM file of the CA that signed the appliance certificate',
  },
  CA_UNREADABLE: {
    kind: 'usage',
    meaning: 'the `--ca` file cannot be read',
    remedy: 'check the path and its permissions',
  },
  CONFIRMATION_REQUIRED: {
    kind: 'usage',
    meaning: 'the command changes things and asks first, but there is no terminal to ask on',
    remedy: 'add `--yes` to confirm, or `--dry-run` to only see what would change',
  },
  FIX_TARGET: {
    kind: 'usage',
    meaning: '`privilege fix` needs either one privilege or `--all`, not both or neither',
    remedy: 'name one privilege (id or name), or pass `--all`',
  },
  INSECURE_TRANSPORT: {
    kind: 'usage',
    meaning: 'a key or password would travel unencrypted (`ws://`, `http://`) to another host',
    remedy: 'use `wss://` (with `--ca <file>` or `--insecure` for a self-signed certificate)',
  },
  KEY_FILE_UNREADABLE: {
    kind: 'usage',
    meaning: 'the `--api-key-file` file cannot be read',
    remedy: 'check the path and its permissions',
  },
  DUPLICATE_TARGET: {
    kind: 'usage',
    meaning:
      'two files of one upload would go to the same path on the appliance (same name from different directories); nothing was sent',
    remedy: 'upload them to different targets, or rename one',
  },
  LOCAL_FILE_EXISTS: {
    kind: 'usage',
    meaning:
      'the local file a download or `privilege suggest -o` would write exists (or is a directory); nothing was written',
    remedy: 'add `--force` to replace the file, or name another destination',
  },
  LOCAL_FILE_MISSING: {
    kind: 'usage',
    meaning: 'a local file to upload does not exist',
    remedy: 'check the path',
  },
  LOCAL_FILE_UNREADABLE: {
    kind: 'usage',
    meaning: 'a local file to upload cannot be opened for reading; nothing was uploaded',
    remedy: 'check its permissions, or leave it out',
  },
  LOCAL_FILE_REFUSED: {
    kind: 'usage',
    meaning:
      'a file named for stor to read (an API key file, a `--ca` or `ca:` bundle, a `stor profile import` list, a TLS file of `stor serve`) is not a regular file (a FIFO, device or directory) or is larger than such a file can be, or standard input given for keys, a password or the parameter of `stor call -` holds more than 1 MB; nothing was read from it',
    remedy:
      'name the file itself (a key file is under 1 kB; a CA bundle, TLS file or profile list under 1 MB), or pipe in only the key, the password or the one parameter',
  },
  LOCAL_NOT_A_FILE: {
    kind: 'usage',
    meaning: 'a local path to upload is not a regular file (a directory, say)',
    remedy: 'name regular files, or upload a directory with `-r`',
  },
  MALFORMED_KEY: {
    kind: 'usage',
    meaning:
      'the text given as an API key (`STOR_API_KEY`, `stor login`, a profile file) is not one (`<id>-<64 letters and digits>`); refused before it is sent anywhere, and never printed',
    remedy: 'copy the whole key shown when it was created',
  },
  MISSING_TARGET: {
    kind: 'usage',
    meaning: '`upload` needs local files and a target path on the appliance',
    remedy: 'give one or more local files, then the target path',
  },
  NEEDS_API_KEY: {
    kind: 'usage',
    meaning: 'uploads and HTTP calls take an API key, and this session logged in with a password',
    remedy: 'use the profile `stor login --username` saved: it holds an API key',
  },
  EMPTY_ENV: {
    kind: 'usage',
    meaning: 'STOR_API_KEY or STOR_URL is set but empty, which would otherwise fall back to another target or key',
    remedy: 'unset the variable, or give it a value',
  },
  NO_API_KEY: {
    kind: 'usage',
    meaning: 'no API key is known for the target, or none was given to `stor login`',
    remedy: '`stor login --url <url>`, or set `STOR_API_KEY`; to `login`, pass `--api-key-file` or `--api-key-stdin`',
  },
  NO_TARGET: {
    kind: 'usage',
    meaning:
      'STOR_REQUIRE_TARGET is set and the command would change the embedded appliance, which no flag, variable or profile chose',
    remedy:
      'choose the target: `--profile NAME`, `--url URL`, `STOR_PROFILE` or `STOR_URL`; `--profile embedded` for the embedded appliance',
  },
  NO_FILE_DELETE: {
    kind: 'usage',
    meaning: '`stor rm`: the 25.10.1 API has no way to delete a file or directory, and stor does not invent one',
    remedy:
      'delete the dataset if the path is one (`stor dataset delete`), upload an empty file over it, or use the web UI or a shell on the appliance',
  },
  NO_PASSWORD: {
    kind: 'usage',
    meaning: 'no password was given to `stor login --username` or `stor user create` (or standard input held none)',
    remedy:
      'pipe it to `--password-stdin` (first line), or run `login` on a terminal to be prompted; `user create --password-disabled` makes a user without one',
  },
  NO_SIGNALS: {
    kind: 'usage',
    meaning: '`stor serve` runs until SIGINT or SIGTERM, and this process cannot receive them',
    remedy: 'run it as a process that can be signalled',
  },
  NO_URL: {
    kind: 'usage',
    meaning: '`stor login` does not know which appliance to log in to',
    remedy: 'pass `--url` (e.g. `--url wss://nas.example.com`) or set `STOR_URL`',
  },
  NO_USERNAME: {
    kind: 'usage',
    meaning: '`--password-stdin` was given without `--username`',
    remedy: 'add `--username NAME`',
  },
  NOTHING_TO_UPDATE: {
    kind: 'usage',
    meaning: 'an `update` verb (`privilege`, `user`, `group`, `dataset`) was given nothing to change',
    remedy: 'pass at least one of the options its `--help` lists',
  },
  OTP_NEEDED: {
    kind: 'usage',
    meaning: 'the user has two-factor authentication, and no one-time code was given',
    remedy: 'pipe the code as the second line after the password, or run on a terminal to be prompted',
  },
  PLAN_FILE_INVALID: {
    kind: 'usage',
    meaning:
      'the file given to `stor apply PLAN` is not a plan stor can trust: not a stor plan (a desired-state file goes with `-f`), another format version, damaged or edited (its checksum), or not 0600 and your own; nothing was read from the target',
    remedy: 'make the plan again with `stor plan -f FILE --out PLAN`, or apply a state file with `stor apply -f FILE`',
  },
  PLAN_TARGET: {
    kind: 'usage',
    meaning:
      'the saved plan was made for another target (another URL, or another embedded state directory) or for another release of this one; nothing was changed',
    remedy:
      "choose the plan's target with `--url` or `--profile`, or make a plan for this target with `stor plan -f FILE --out PLAN`",
  },
  PROFILE_EXISTS: {
    kind: 'usage',
    meaning:
      '`stor login` would overwrite a profile of that name saved for another appliance, or the name is `embedded`, reserved for the embedded appliance',
    remedy: 'choose another name with `--profile NAME`, or `--force` to replace it',
  },
  REMOTE_NOT_A_FILE: {
    kind: 'usage',
    meaning: 'the path to download is a directory or another non-regular file',
    remedy: 'name a regular file; `stor ls` shows what a directory holds',
  },
  TARGET_NOT_A_DIRECTORY: {
    kind: 'usage',
    meaning: 'several files go to a directory, and the target is a file or missing',
    remedy: 'end the target with `/` to create it as a directory',
  },
  TLS_FILE_UNREADABLE: {
    kind: 'usage',
    meaning: 'the `--tls-cert` or `--tls-key` file of `stor serve` cannot be read',
    remedy: 'check the path and its permissions',
  },
  TLS_HALF_CONFIGURED: {
    kind: 'usage',
    meaning: '`stor serve` got only one of `--tls-cert` and `--tls-key`',
    remedy: 'give both, or neither for plain `ws://`',
  },
  UNKNOWN_ROLE: {
    kind: 'usage',
    meaning: 'a role given is not a role of the target appliance',
    remedy: '`stor call privilege.roles` lists them',
  },
  UNKNOWN_HELP_TOPIC: {
    kind: 'usage',
    meaning: '`stor help` was asked about a command that does not exist',
    remedy: '`stor --help` lists the commands; `stor help <noun>` lists its verbs',
  },
  UNKNOWN_SHELL: {
    kind: 'usage',
    meaning: '`stor completion` has no script for that shell',
    remedy: 'choose one of the shells `stor completion --help` lists',
  },
  USAGE: {
    kind: 'usage',
    meaning: 'the command line is wrong: an unknown command or option, or a missing or bad argument',
    remedy: 'the hint names the help of the command that failed, e.g. `stor job list --help`',
  },

  // exit 3: the target cannot be reached or does not answer as an appliance
  CONNECTION_CLOSED: {
    kind: 'unreachable',
    meaning: 'the appliance closed the connection before answering',
    remedy: 'the appliance may be restarting or refusing the load; try again later',
  },
  JOB_STALLED: {
    kind: 'unreachable',
    meaning: 'an appliance job did not move for `--timeout` seconds; stor stopped waiting (the job may yet finish)',
    remedy: 'look again with `stor call core.get_jobs`, or raise `--timeout`',
  },
  LOGIN_REDIRECT: {
    kind: 'unreachable',
    meaning: 'the appliance is a standby node and sent stor to the active one',
    remedy: 'use the URL of the active node the message names',
  },
  MALFORMED_ANSWER: {
    kind: 'unreachable',
    meaning: 'an answer that no 25.10.1 appliance gives (missing members, wrong types, not JSON-RPC)',
    remedy: 'check that the URL names a 25.10.1 appliance',
  },
  NOT_AN_APPLIANCE: {
    kind: 'unreachable',
    meaning:
      'the server answered HTTP where the JSON-RPC API (`/api/current`) should be; when its `/api/versions` lists API versions, they are named (an appliance older than the API stor speaks)',
    remedy: 'check the URL: it should name the appliance itself, e.g. `wss://nas.example.com`',
  },
  RATE_LIMITED: {
    kind: 'unreachable',
    meaning: 'the appliance is rate-limiting logins or uploads from this address',
    remedy: 'wait a minute and space out invocations, or raise `--timeout` to wait longer',
  },
  SESSION_LOST: {
    kind: 'unreachable',
    meaning:
      'the session agent running the command ended (killed, or stopped answering) before it finished; whether the command changed anything is unknown',
    remedy: 'check before running it again: `stor job list`, `stor stat PATH`, or the list command of what it changes',
  },
  TLS_NOT_SPOKEN: {
    kind: 'unreachable',
    meaning: 'a wss:// or https:// URL reached a server that answers in plain text',
    remedy: 'use ws:// or http:// for that port (on this machine), or the port where the appliance speaks TLS',
  },
  TIMEOUT: {
    kind: 'unreachable',
    meaning: 'the appliance did not answer, or an upload made no progress, within `--timeout`',
    remedy: 'raise `--timeout`, or check that the appliance is up and the link to it',
  },
  TLS_FAILED: {
    kind: 'unreachable',
    meaning:
      'TLS with the appliance failed: its certificate is not trusted, or the handshake failed for the reason the message gives',
    remedy: 'pass the signing CA with `--ca <file>`, or `--insecure` for a self-signed appliance',
  },
  UNREACHABLE: {
    kind: 'unreachable',
    meaning: 'the appliance cannot be reached: refused, host not found, reset, timed out',
    remedy: 'check the URL, the network and that the appliance is up',
  },

  // exit 4: authentication failed
  KEY_REJECTED: {
    kind: 'auth',
    meaning: 'the API key was rejected: wrong, revoked or expired, or its user holds no privilege',
    remedy: 'check the key, or create a new one (`stor api-key create NAME --user USER`) and `stor login` with it',
  },
  LOGIN_BROKEN_BY_PRIVILEGE: {
    kind: 'auth',
    meaning: 'login fails because a privilege bound to this identity has a role list 25.10.1 cannot expand',
    remedy: 'as an administrator not bound to it: `stor privilege check`, then `stor privilege fix <id>`',
  },
  LOGIN_EXPIRED: {
    kind: 'auth',
    meaning: 'the account or its password has expired',
    remedy: 'an administrator must renew the account or set a new password',
  },
  LOGIN_REJECTED: {
    kind: 'auth',
    meaning: 'wrong username or password, password login disabled, or the user is bound to no privilege',
    remedy: "check the username and password; an administrator can bind one of the user's groups to a privilege",
  },
  SCRAM_FAILED: {
    kind: 'auth',
    meaning:
      'the appliance offered SCRAM (TrueNAS 26) and the SCRAM key login failed: key refused, no API access, or the appliance did not prove it knows the key; stor never falls back to sending the key',
    remedy:
      'check the key and its user (STOR_USER or the profile\'s `username`); with "did not prove", suspect the connection',
  },
  SCRAM_NEEDS_USER: {
    kind: 'auth',
    meaning: "the appliance offered SCRAM (TrueNAS 26), which names the key's user, and stor does not know it",
    remedy: "set STOR_USER=NAME (the key's owner), or `stor login` again, which saves it in the profile",
  },
  OTP_REJECTED: {
    kind: 'auth',
    meaning: 'the appliance rejected the one-time code',
    remedy: 'use the code the authenticator shows now; if codes keep failing, check both clocks',
  },
  UPLOAD_UNAUTHORIZED: {
    kind: 'auth',
    meaning: 'the upload endpoint did not accept the API key (HTTP 401)',
    remedy: 'check the key, or `stor login` again',
  },

  // exit 5: not permitted
  CANNOT_CREATE_KEY: {
    kind: 'denied',
    meaning: 'the password login worked, but the user may not create an API key for itself',
    remedy:
      'that takes READONLY_ADMIN, API_KEY_WRITE or FULL_ADMIN; or have an administrator create a key and `stor login --api-key-stdin`',
  },
  UPLOAD_FORBIDDEN: {
    kind: 'denied',
    meaning: "the appliance's upload gate refused the identity (HTTP 403)",
    remedy: 'upload with a key whose privilege passes the gate the message names (FULL_ADMIN on 25.10.1)',
  },

  // exit 130: interrupted
  INTERRUPTED: {
    kind: 'interrupted',
    meaning:
      'interrupted (Ctrl-C, SIGINT) at a prompt or during an upload or download; the message says what was written',
    remedy: 'run the command again',
  },

  // exit 143: terminated
  TERMINATED: {
    kind: 'terminated',
    meaning:
      'stopped by SIGTERM during an upload or download; the message says what was written, and no temporary file is left',
    remedy: 'run the command again',
  },
} as const satisfies Record<string, { kind: StorErrorKind; meaning: string; remedy: string }>;

/** A code stor raises; any other string is a compile error where a code is expected. */
export type ErrorCode = keyof typeof CATALOGUE;

export interface CatalogueEntry<C extends ErrorCode = ErrorCode> {
  readonly code: C;
  readonly kind: (typeof CATALOGUE)[C]['kind'];
  /** What it means, for docs/ERRORS.md. */
  readonly meaning: string;
  /** What to do, for docs/ERRORS.md; a raise site's hint is the specific form of it. */
  readonly remedy: string;
}

/** The catalogue by code: `new StorError(E.BAD_MODE, message, { hint })`. */
export const E = Object.fromEntries(Object.entries(CATALOGUE).map(([code, entry]) => [code, { code, ...entry }])) as {
  readonly [C in ErrorCode]: CatalogueEntry<C>;
};

/** The entry for a transfer or command stopped by a signal: TERMINATED for SIGTERM, INTERRUPTED for SIGINT (and any other). */
export const stoppedBy = (signal: string) => (signal === 'SIGTERM' ? E.TERMINATED : E.INTERRUPTED);
