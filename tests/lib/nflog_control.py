"""The control for the block log's tests: does this kernel bind an NFLOG group?

    python3 nflog_control.py GROUP     (root; run it in a network namespace of
                                        its own: unshare --net)

Sends the bind the init sends (nfnetlink_log's NFULNL_MSG_CONFIG with
NFULNL_CFG_CMD_BIND, asking for an ACK) and reads the kernel's answer.
Exit 0 and "nflog: group GROUP bound": the kernel has NFLOG.  Exit 2 and
"nflog: ...": it has not (no nfnetlink_log: ENOENT, EOPNOTSUPP or
EPROTONOSUPPORT, as the init's own message says), a skip.  Exit 1: any
other answer, which the test must not hide.
"""
import errno
import os
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NFNL_SUBSYS_ULOG = 4
NFULNL_MSG_CONFIG = 1
NFULA_CFG_CMD = 1
NFULNL_CFG_CMD_BIND = 1
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
ABSENT = (errno.ENOENT, errno.EOPNOTSUPP, errno.EPROTONOSUPPORT)


def main():
    group = int(sys.argv[1])
    try:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    except OSError as e:
        print("nflog: no netfilter netlink socket (%s)" % os.strerror(e.errno))
        return 2 if e.errno in (errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT) else 1
    s.bind((0, 0))
    # nfgenmsg: family AF_UNSPEC, version 0, res_id = the group (big-endian)
    body = struct.pack("!BBH", 0, 0, group)
    attr = struct.pack("=HHB3x", 5, NFULA_CFG_CMD, NFULNL_CFG_CMD_BIND)
    msg_type = NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_CONFIG
    hdr = struct.pack("=IHHII", 16 + len(body) + len(attr), msg_type, NLM_F_REQUEST | NLM_F_ACK, 1, 0)
    s.settimeout(5)
    s.send(hdr + body + attr)
    data = s.recv(8192)
    _, kind, _, seq, _ = struct.unpack_from("=IHHII", data)
    if kind != NLMSG_ERROR or seq != 1:
        print("nflog: an unexpected answer (type %d, seq %d)" % (kind, seq))
        return 1
    code = -struct.unpack_from("=i", data, 16)[0]
    if code == 0:
        print("nflog: group %d bound" % group)
        return 0
    print("nflog: the kernel refused to bind NFLOG group %d (%s)%s" % (
        group, os.strerror(code), ": it has no nfnetlink_log" if code in ABSENT else ""))
    return 2 if code in ABSENT else 1


if __name__ == "__main__":
    sys.exit(main())
