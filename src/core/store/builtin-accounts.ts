import type { Database } from './sqlite.js';
import { insertGroup, listGroups } from './groups.js';
import { insertUser, listUsers } from './users.js';

/**
 * The Debian system accounts of a 25.10.1 image: its /conf/base/etc/passwd and group, which
 * `user.sync_builtin` copies into the database as built-in rows (MW/plugins/account_/sync_builtin.py:23-317).
 * The lines are truenas/scale-build's reference files at tag TS-25.10.1 (commit
 * 430200cc4ec826aac8da8aa132cf7648e6d048d1), conf/reference-files/etc/passwd and group, which the
 * build checks the image's files against (scale_build/update_image.py:40-75); the accounts stor's
 * seed already makes (root, the builtin_* and truenas_* groups) are kept as they are.
 */
const PASSWD = `
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
sys:x:3:3:sys:/dev:/usr/sbin/nologin
sync:x:4:65534:sync:/bin:/bin/sync
games:x:5:60:games:/usr/games:/usr/sbin/nologin
man:x:6:12:man:/var/cache/man:/usr/sbin/nologin
lp:x:7:7:lp:/var/spool/lpd:/usr/sbin/nologin
mail:x:8:8:mail:/var/mail:/usr/sbin/nologin
news:x:9:9:news:/var/spool/news:/usr/sbin/nologin
uucp:x:10:10:uucp:/var/spool/uucp:/usr/sbin/nologin
proxy:x:13:13:proxy:/bin:/usr/sbin/nologin
www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin
backup:x:34:34:backup:/var/backups:/usr/sbin/nologin
list:x:38:38:Mailing List Manager:/var/list:/usr/sbin/nologin
irc:x:39:39:ircd:/run/ircd:/usr/sbin/nologin
gnats:x:41:41:Gnats Bug-Reporting System (admin):/var/lib/gnats:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/var/empty:/usr/sbin/nologin
_apt:x:100:65534::/var/empty:/usr/sbin/nologin
systemd-timesync:x:101:101:systemd Time Synchronization,,,:/run/systemd:/usr/sbin/nologin
systemd-network:x:102:103:systemd Network Management,,,:/run/systemd:/usr/sbin/nologin
systemd-resolve:x:103:104:systemd Resolver,,,:/run/systemd:/usr/sbin/nologin
messagebus:x:104:111:messagebus user:/var/empty:/usr/sbin/nologin
avahi:x:105:112:avahi user:/var/empty:/usr/sbin/nologin
_rpc:x:106:65534::/run/rpcbind:/usr/sbin/nologin
statd:x:107:65534::/var/lib/nfs:/usr/sbin/nologin
consul:x:108:113:Consul Daemon:/var/tmp/consul:/usr/sbin/nologin
nvpd:x:109:114:NVIDIA Persistence Daemon,,,:/var/run/nvpd/:/usr/sbin/nologin
nslcd:x:110:115:Nslcd Daemon:/var/tmp/nslcd:/usr/sbin/nologin
sshd:x:111:65534:Secure Shell Daemon:/var/empty:/usr/sbin/nologin
systemd-coredump:x:112:116:systemd Core Dumper,,,:/run/systemd:/usr/sbin/nologin
Debian-snmp:x:113:117::/var/lib/snmp:/bin/false
ntp:x:114:119::/var/empty:/usr/sbin/nologin
Debian-exim:x:115:120::/var/spool/exim4:/usr/sbin/nologin
tftp:x:116:121:tftp daemon,,,:/srv/tftp:/usr/sbin/nologin
tcpdump:x:118:123::/var/empty:/usr/sbin/nologin
proftpd:x:120:65534::/run/proftpd:/usr/sbin/nologin
ftp:x:121:65534::/var/empty:/bin/csh
nut:x:122:126::/var/lib/nut:/usr/sbin/nologin
dnsmasq:x:123:65534:dnsmasq,,,:/var/lib/misc:/usr/sbin/nologin
ladvd:x:124:127:ladvd user:/var/empty:/usr/sbin/nologin
nova:x:125:129::/var/lib/nova:/bin/bash
apps:x:568:568:Unprivileged Apps User:/var/empty:/usr/sbin/nologin
webdav:x:666:666:WebDAV Anonymous User:/var/empty:/usr/sbin/nologin
libvirt-qemu:x:986:106:Libvirt Qemu,,,:/var/lib/libvirt:/usr/sbin/nologin
haproxy:x:126:130::/var/lib/haproxy:/usr/sbin/nologin
uuidd:x:127:131::/run/uuidd:/usr/sbin/nologin
ntpsec:x:128:135::/var/empty:/usr/sbin/nologin
tss:x:129:136:TPM software stack,,,:/var/lib/tpm:/bin/false
iperf3:x:130:137::/var/empty:/usr/sbin/nologin
_chrony:x:131:138:Chrony daemon,,,:/var/lib/chrony:/usr/sbin/nologin
polkitd:x:998:998:polkit:/var/empty:/usr/sbin/nologin
netdata:x:999:997::/var/lib/netdata:/bin/sh
sssd:x:117:122:SSSD system user:/var/lib/sss:/usr/sbin/nologin
`;

const GROUP = `
root:x:0:
wheel:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:netdata
tty:x:5:
disk:x:6:
lp:x:7:
mail:x:8:
news:x:9:
uucp:x:10:
man:x:12:
proxy:x:13:
ftp:x:14:
kmem:x:15:
dialout:x:20:nut
fax:x:21:
voice:x:22:
cdrom:x:24:
floppy:x:25:
tape:x:26:
sudo:x:27:
audio:x:29:
dip:x:30:
www-data:x:33:
backup:x:34:
operator:x:37:
list:x:38:
irc:x:39:
src:x:40:
gnats:x:41:
shadow:x:42:
utmp:x:43:
video:x:44:
sasl:x:45:
plugdev:x:46:
staff:x:50:
games:x:60:
users:x:100:
nogroup:x:65534:
nobody:x:65534:
systemd-timesync:x:101:
systemd-journal:x:102:
systemd-network:x:103:
systemd-resolve:x:104:
input:x:105:
kvm:x:106:
render:x:107:
crontab:x:108:
netdev:x:109:
ssh:x:110:
messagebus:x:111:
avahi:x:112:
consul:x:113:
nvpd:x:114:
nslcd:x:115:
systemd-coredump:x:116:
Debian-snmp:x:117:
ssl-cert:x:118:
ntp:x:119:
Debian-exim:x:120:
tftp:x:121:
tcpdump:x:123:
rdma:x:124:
nut:x:126:
ladvd:x:127:
libvirt:x:128:
nova:x:129:
builtin_administrators:x:544:
builtin_users:x:545:
builtin_guests:x:546:
apps:x:568:
webdav:x:666:
truenas_readonly_administrators:x:951:
truenas_sharing_administrators:x:952:
docker:x:999:
libvirt-qemu:x:986:libvirt-qemu
haproxy:x:130:
uuidd:x:131:
i2c:x:132:
sgx:x:133:
_ssh:x:134:
ntpsec:x:135:
tss:x:136:
iperf3:x:137:
_chrony:x:138:
polkitd:x:998:
netdata:x:997:
sssd:x:122:
incus:x:996:
incus-admin:x:995:
`;

/** uids and gids mapped DIRECT into user namespaces (`BUILTIN_USERNS_IDMAP_USER/GROUP`, sync_builtin.py:11-12). */
const USERNS_DIRECT = 568;

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/**
 * Adds the system accounts a state lacks, as `sync_builtin` inserts them: groups first, in the
 * file's order (not smb, `userns_idmap` DIRECT for 568), then users (full name the GECOS field up
 * to its first comma, the primary group the first group with the gid, not smb, password login
 * not disabled but no password), then the group file's member lists. Nothing of the state's own
 * is changed: an account whose name, uid or gid is already taken is left out (where 25.10.1 would
 * rename a user's own account of that name to `<name>_1`); of two groups sharing a gid (wheel and
 * root 0, nobody and nogroup 65534) the state keeps one, gids being unique in it.
 */
export function addBuiltinAccounts(db: Database): void {
  const groups = listGroups(db);
  const groupNames = new Set(groups.map((g) => g.name));
  const groupIdByGid = new Map(groups.map((g) => [g.gid, g.id]));
  const members: [group: number, username: string][] = [];
  for (const line of lines(GROUP)) {
    const [name, , gidText, memberList] = line.split(':', 4) as [string, string, string, string];
    const gid = Number(gidText);
    if (groupNames.has(name) || groupIdByGid.has(gid)) continue;
    const id = insertGroup(db, {
      gid,
      name,
      builtin: true,
      smb: false,
      sudo_commands: [],
      sudo_commands_nopasswd: [],
      userns_idmap: gid === USERNS_DIRECT ? 'DIRECT' : null,
    });
    groupNames.add(name);
    groupIdByGid.set(gid, id);
    for (const username of memberList.split(',').filter(Boolean)) members.push([id, username]);
  }
  const users = listUsers(db);
  const usernames = new Set(users.map((u) => u.username));
  const uids = new Set(users.map((u) => u.uid));
  for (const line of lines(PASSWD)) {
    const [username, , uidText, gidText, gecos, home, shell] = line.split(':') as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const uid = Number(uidText);
    const groupId = groupIdByGid.get(Number(gidText));
    if (usernames.has(username) || uids.has(uid) || groupId === undefined) continue;
    insertUser(db, {
      uid,
      username,
      full_name: gecos.split(',')[0]!,
      home,
      shell,
      group_id: groupId,
      groups: members.filter(([, member]) => member === username).map(([group]) => group),
      builtin: true,
      smb: false,
      password_disabled: false,
      password_hash: null,
      locked: false,
      email: null,
      sshpubkey: null,
      ssh_password_enabled: false,
      sudo_commands: [],
      sudo_commands_nopasswd: [],
      userns_idmap: uid === USERNS_DIRECT ? 'DIRECT' : null,
      last_password_change: null,
    });
    usernames.add(username);
    uids.add(uid);
  }
}
