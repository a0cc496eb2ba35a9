// SPDX-License-Identifier: GPL-2.0
/* rtnetlink link messages through libmnl; see links.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "links.h"
#include "log.h"

struct rxlat_links {
	struct mnl_socket *nl;
};

struct msg_ctx {
	links_cb cb;
	void *ctx;
};

static int on_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **name = data;

	if (mnl_attr_get_type(a) == IFLA_IFNAME && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		*name = a;
	return MNL_CB_OK;
}

static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *name = NULL;
	struct msg_ctx *m = data;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*ifm), on_attr, &name) < 0)
		return MNL_CB_OK;
	m->cb(m->ctx, nlh->nlmsg_type == RTM_DELLINK, (__u32)ifm->ifi_index,
	      name ? mnl_attr_get_str(name) : NULL);
	return MNL_CB_OK;
}

int links_open(struct rxlat_links **out)
{
	struct rxlat_links *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return -ENOMEM;
	l->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!l->nl || mnl_socket_bind(l->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID)) {
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
	struct msg_ctx m = { cb, ctx };
	int lost = 0;

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(l->nl, buf, sizeof(buf));

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return lost;
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
