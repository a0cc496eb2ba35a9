// SPDX-License-Identifier: GPL-2.0
/* rtnetlink link and address messages through libmnl; see links.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include "links.h"
#include "log.h"
#include "rxlat.h"

struct rxlat_links {
	struct mnl_socket *nl;
	int addrs_fd; /* the address set kept up to date, -1: none */
};

struct msg_ctx {
	links_cb cb;
	void *ctx;
	struct rxlat_links *l;
	bool refill; /* an address went: fill the set again (another may hold it) */
};

/* ---- the namespace's own addresses, for the tc stamper ------------- */

struct addr_attrs {
	const struct nlattr *local, *address, *broadcast;
};

static int on_addr_attr(const struct nlattr *a, void *data)
{
	struct addr_attrs *at = data;

	switch (mnl_attr_get_type(a)) {
	case IFA_LOCAL:
		at->local = a;
		break;
	case IFA_ADDRESS:
		at->address = a;
		break;
	case IFA_BROADCAST:
		at->broadcast = a;
		break;
	}
	return MNL_CB_OK;
}

/* One address attribute into the set (IPv4 as ::ffff:a.b.c.d). */
static void addr_put(int fd, int family, const struct nlattr *a, bool add)
{
	struct rxlat_addr_key k = {};
	static bool told;
	__u8 one = 1;

	if (!a)
		return;
	if (family == AF_INET && mnl_attr_get_payload_len(a) == 4) {
		k.a[10] = k.a[11] = 0xff;
		memcpy(&k.a[12], mnl_attr_get_payload(a), 4);
	} else if (family == AF_INET6 && mnl_attr_get_payload_len(a) == 16) {
		memcpy(k.a, mnl_attr_get_payload(a), 16);
	} else {
		return;
	}
	if (!add) {
		bpf_map_delete_elem(fd, &k);
	} else if (bpf_map_update_elem(fd, &k, &one, BPF_ANY) && !told) {
		rxlat_warn("this namespace has more than %d addresses: packets for the others "
			   "are taken as forwarded, and measured up to the socket",
			   RXLAT_LOCAL_ADDRS);
		told = true;
	}
}

/*
 * An address message: its local address (IFA_LOCAL, else IFA_ADDRESS) and
 * IPv4 broadcast address are delivered here. False when it removed one.
 */
static bool addr_msg(int fd, const struct nlmsghdr *nlh)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	bool add = nlh->nlmsg_type == RTM_NEWADDR;
	struct addr_attrs at = {};

	if (mnl_attr_parse(nlh, sizeof(*ifa), on_addr_attr, &at) < 0)
		return true;
	addr_put(fd, ifa->ifa_family, at.local ?: at.address, add);
	if (ifa->ifa_family == AF_INET)
		addr_put(fd, AF_INET, at.broadcast, add);
	return add;
}

static int on_dump_addr(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWADDR)
		addr_msg(*(int *)data, nlh);
	return MNL_CB_OK;
}

/* A dump of the namespace's objects of request type, each message to cb: 0 or -errno. */
static int dump(__u16 type, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;
	unsigned int seq = (unsigned int)time(NULL), port;
	int err = 0;
	ssize_t n;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		err = -errno;
		goto out;
	}
	port = mnl_socket_get_portid(nl);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		int r = mnl_cb_run(buf, n, seq, port, cb, data);

		if (r <= MNL_CB_STOP) {
			err = r < 0 ? -errno : 0;
			break;
		}
	}
	if (n < 0)
		err = -errno;
out:
	if (nl)
		mnl_socket_close(nl);
	return err;
}

int links_addrs_fill(int fd)
{
	return dump(RTM_GETADDR, on_dump_addr, &fd);
}

void links_track_addrs(struct rxlat_links *l, int fd)
{
	l->addrs_fd = fd;
	if (fd >= 0)
		links_addrs_fill(fd); /* what changed before: the set is kept from here */
}

struct link_attrs {
	const char *name, *kind;
};

static int on_info_attr(const struct nlattr *a, void *data)
{
	struct link_attrs *la = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		la->kind = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

static int on_attr(const struct nlattr *a, void *data)
{
	struct link_attrs *la = data;

	if (mnl_attr_get_type(a) == IFLA_IFNAME && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		la->name = mnl_attr_get_str(a);
	else if (mnl_attr_get_type(a) == IFLA_LINKINFO && !mnl_attr_validate(a, MNL_TYPE_NESTED))
		mnl_attr_parse_nested(a, on_info_attr, la);
	return MNL_CB_OK;
}

/* A link message to cb. */
static void link_msg(const struct nlmsghdr *nlh, links_cb cb, void *ctx)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct link_attrs la = { 0 };

	if (mnl_attr_parse(nlh, sizeof(*ifm), on_attr, &la) < 0)
		return;
	cb(ctx, nlh->nlmsg_type == RTM_DELLINK, (__u32)ifm->ifi_index, la.name, la.kind);
}

struct dump_ctx {
	links_cb cb;
	void *ctx;
};

static int on_dump_link(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *d = data;

	if (nlh->nlmsg_type == RTM_NEWLINK)
		link_msg(nlh, d->cb, d->ctx);
	return MNL_CB_OK;
}

int links_dump(links_cb cb, void *ctx)
{
	struct dump_ctx d = { cb, ctx };

	return dump(RTM_GETLINK, on_dump_link, &d);
}

static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	struct msg_ctx *m = data;

	if (nlh->nlmsg_type == RTM_NEWADDR || nlh->nlmsg_type == RTM_DELADDR) {
		if (m->l->addrs_fd >= 0 && !addr_msg(m->l->addrs_fd, nlh))
			m->refill = true;
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type == RTM_NEWLINK || nlh->nlmsg_type == RTM_DELLINK)
		link_msg(nlh, m->cb, m->ctx);
	return MNL_CB_OK;
}

int links_open(struct rxlat_links **out)
{
	struct rxlat_links *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return -ENOMEM;
	l->addrs_fd = -1;
	l->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!l->nl || mnl_socket_bind(l->nl, RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
				      MNL_SOCKET_AUTOPID)) {
		err = -errno;
		rxlat_err("cannot watch the interfaces (rtnetlink): %s", strerror(-err));
		links_close(l);
		return err;
	}
	*out = l;
	return 0;
}

int links_fd(const struct rxlat_links *l)
{
	return mnl_socket_get_fd(l->nl);
}

int links_read(struct rxlat_links *l, links_cb cb, void *ctx)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct msg_ctx m = { cb, ctx, l, false };
	int lost = 0;

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(l->nl, buf, sizeof(buf));

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if ((m.refill || lost) && l->addrs_fd >= 0)
				links_addrs_fill(l->addrs_fd);
			return lost;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			lost = 1;
			continue;
		}
		if (n < 0) {
			int err = -errno;

			rxlat_err("reading rtnetlink: %s", strerror(-err));
			return err;
		}
		mnl_cb_run(buf, n, 0, 0, on_msg, &m);
	}
}

void links_close(struct rxlat_links *l)
{
	if (!l)
		return;
	if (l->nl)
		mnl_socket_close(l->nl);
	free(l);
}
