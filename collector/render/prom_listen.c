// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics listening socket (prom_listen.h): bound before anything is
 * attached, and refused in one line that names the fix (the port in use,
 * an address no interface has, lo down).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "log.h"
#include "opt.h"
#include "prom_listen.h"

/*
 * "ip -n NAME" where rxlat's network namespace is bind-mounted under
 * /run/netns (ip netns), so that a hint works from any shell; else "ip",
 * to be run in this namespace.
 */
static void ip_command(char *buf, size_t len)
{
	struct stat self, st;
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(buf, len, "ip");
	if (stat("/proc/self/ns/net", &self) || !(d = opendir("/run/netns")))
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strpbrk(e->d_name, " '\"\\$`"))
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		if (!stat(path, &st) && st.st_ino == self.st_ino && st.st_dev == self.st_dev) {
			snprintf(buf, len, "ip -n %s", e->d_name);
			break;
		}
	}
	closedir(d);
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (!a || a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

/* sa as --prometheus takes it: "10.0.0.2:9474", "[fd00::2]:9474" */
static void put_listen(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &a4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(a4->sin_port));
	} else {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &a6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(a6->sin6_port));
	}
}

/* sa with want's port (and no IPv6 scope) into ss; its length */
static socklen_t with_port(const struct sockaddr *sa, const struct sockaddr *want,
			   struct sockaddr_storage *ss)
{
	socklen_t len =
	    sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	memset(ss, 0, sizeof(*ss));
	memcpy(ss, sa, len);
	if (sa->sa_family == AF_INET6) {
		((struct sockaddr_in6 *)ss)->sin6_port =
		    ((const struct sockaddr_in6 *)want)->sin6_port;
		((struct sockaddr_in6 *)ss)->sin6_scope_id = 0;
	} else {
		((struct sockaddr_in *)ss)->sin_port = ((const struct sockaddr_in *)want)->sin_port;
	}
	return len;
}

/* sa binds and listens here now */
static bool can_listen(const struct sockaddr *sa, socklen_t len)
{
	int one = 1, fd, ok;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ok = !bind(fd, sa, len) && !listen(fd, 1);
	close(fd);
	return ok;
}

/* The name of this namespace's loopback interface where it is down; NULL if up. */
static const char *lo_down(struct ifaddrs *ifs)
{
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
		if ((i->ifa_flags & IFF_LOOPBACK) && !(i->ifa_flags & IFF_UP))
			return i->ifa_name;
	return NULL;
}

/*
 * "--prometheus A:PORT or --prometheus B:PORT": the addresses of this namespace's interfaces that
 * are up, of want's family, each tried (bound and closed again) with its port; "" if none.
 */
static void alternatives(struct ifaddrs *ifs, const struct sockaddr *want, char *buf, size_t len)
{
	const char *name = opt(OPT_PROMETHEUS);
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (struct ifaddrs *i = ifs; i && n < 3 && used < len; i = i->ifa_next) {
		char l[INET6_ADDRSTRLEN + 10];
		struct sockaddr_storage ss;
		socklen_t sl;

		if (!i->ifa_addr || i->ifa_addr->sa_family != want->sa_family ||
		    !(i->ifa_flags & IFF_UP) || same_addr(i->ifa_addr, want))
			continue;
		if (want->sa_family == AF_INET6 &&
		    IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
			continue; /* would need its interface: not a plain ADDR:PORT */
		sl = with_port(i->ifa_addr, want, &ss);
		if (!can_listen((const struct sockaddr *)&ss, sl))
			continue;
		put_listen((const struct sockaddr *)&ss, l, sizeof(l));
		used += snprintf(buf + used, len - used, "%s%s %s", n ? " or " : "", name, l);
		n++;
	}
}

/*
 * The address is not available (EADDRNOTAVAIL): where it is on an
 * interface that is down (a loopback address: lo down), that interface and
 * the command that brings it up; and only addresses that were just bound
 * with the same port. One line.
 */
static void say_not_available(const struct rxlat_config *cfg)
{
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->prom_addr;
	const char *arg = cfg->prom_listen, *name = opt(OPT_PROMETHEUS);
	const char *down = NULL, *lo = NULL;
	char ip[PATH_MAX + 8], alt[512], where[INET6_ADDRSTRLEN + 40], a[INET6_ADDRSTRLEN] = "?";
	struct ifaddrs *ifs = NULL;

	if (getifaddrs(&ifs))
		ifs = NULL;
	ip_command(ip, sizeof(ip));
	inet_ntop(sa->sa_family,
		  sa->sa_family == AF_INET6
		      ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr
		      : (const void *)&((const struct sockaddr_in *)sa)->sin_addr,
		  a, sizeof(a));
	lo = lo_down(ifs);
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
		if (!(i->ifa_flags & IFF_UP) && same_addr(i->ifa_addr, sa))
			down = i->ifa_name;
	if (is_loopback(sa) && lo)
		down = lo;
	alternatives(ifs, sa, alt, sizeof(alt));
	if (strchr(arg, ':'))
		snprintf(where, sizeof(where), "%s", a);
	else
		snprintf(where, sizeof(where), "a bare port listens on %s, which", a);
	if (down)
		rxlat_err("%s %s: %s is on %s, and %s is down in this network namespace: bring it "
			  "up with '%s link set %s up'%s%s",
			  name, arg, where, down, down, ip, down,
			  alt[0] ? ", or listen on an interface that is up: " : "", alt);
	else if (alt[0])
		rxlat_err("%s %s: no interface of this network namespace has that address: give "
			  "one it has, as in %s",
			  name, arg, alt);
	else if (lo)
		rxlat_err(
		    "%s %s: no interface of this network namespace has that address, and "
		    "its loopback %s is down: bring it up with '%s link set %s up', then give "
		    "%s %s:%u",
		    name, arg, lo, ip, lo, name, sa->sa_family == AF_INET6 ? "[::1]" : "127.0.0.1",
		    ntohs(((const struct sockaddr_in *)sa)->sin_port));
	else
		rxlat_err("%s %s: no interface of this network namespace has that address: see "
			  "'%s -brief address' for those it has",
			  name, arg, ip);
	freeifaddrs(ifs);
}

/*
 * Listening on a loopback address while lo is down: bound, but nothing can
 * connect. Said in one line, with the command that brings lo up.
 */
static void check_lo_up(const struct rxlat_config *cfg)
{
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->prom_addr;
	struct ifaddrs *ifs = NULL;
	char ip[PATH_MAX + 8];
	const char *lo;

	if (!is_loopback(sa) || getifaddrs(&ifs))
		return;
	lo = lo_down(ifs);
	if (lo) {
		ip_command(ip, sizeof(ip));
		rxlat_warn("%s %s: %s is down in this network namespace: nothing can connect "
			   "until '%s link set %s up'",
			   opt(OPT_PROMETHEUS), cfg->prom_listen, lo, ip, lo);
	}
	freeifaddrs(ifs);
}

/* The listening socket; -errno with the error printed, naming the fix. */
int prom_listen_socket(const struct rxlat_config *cfg)
{
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->prom_addr;
	socklen_t len =
	    sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	const char *arg = cfg->prom_listen, *name = opt(OPT_PROMETHEUS);
	int one = 1, fd, err;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		rxlat_err("%s %s: cannot make a socket: %s", name, arg, strerror(-err));
		return err;
	}
	/* a restarted rxlat binds at once despite TIME_WAIT; a listener still refuses */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!bind(fd, sa, len) && !listen(fd, 64)) {
		check_lo_up(cfg);
		return fd;
	}
	err = -errno;
	close(fd);
	if (err == -EADDRINUSE)
		rxlat_err("%s %s: the port is in use (another rxlat or exporter?): stop it, or "
			  "choose another port",
			  name, arg);
	else if (err == -EADDRNOTAVAIL)
		say_not_available(cfg);
	else if (err == -EACCES)
		rxlat_err("%s %s: a port below 1024 needs CAP_NET_BIND_SERVICE: choose a port "
			  "from 1024 up",
			  name, arg);
	else
		rxlat_err("%s %s: cannot listen there: %s", name, arg, strerror(-err));
	return err;
}
