#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test-deploy (and the "deploy" part of make test): rxlat installed as
# operators install it, each way built and run here.
#
#   deb        make deb, lintian without errors, apt-get install of the
#              package into a fresh Debian 12 root (mmdebstrap), the files
#              where rxlat and the unit look for them, the unit verified
#              and not enabled, a measurement by the installed binary over
#              a veth pair with exact counts, and apt-get purge leaving the
#              root's files as they were before the install
#   image      make image's script, the image run by podman as the
#              DaemonSet runs it (its capabilities, not privileged; the
#              node's network and PIDs, its bpffs and cgroup2): datagrams
#              from outside into a pod behind the "node" counted exactly
#              in /metrics scraped from outside the container; rxlat's RSS;
#              nothing attached after podman stop, nor after podman kill
#   deb_arm64  make deb ARCH=arm64: the cross-built arm64 package, lintian
#              clean, its files and Depends the host package's, its
#              programs AArch64, its objects BPF
#   daemonset  configs/rxlat-daemonset.yaml checked offline by kubectl's
#              own decoding (a broken manifest is refused), its arguments
#              the image's and this test's, its capabilities the unit's,
#              its nodes and its image's tag of this host's architecture
#
# The "node" is a network namespace whose uplink is called eth0, so that
# the DaemonSet's own arguments (-i eth0) run unchanged; the machine's
# interfaces are never touched. Every name made here starts with
# rxlat-dep<pid> (namespaces, containers, images, directories under /tmp),
# removed on every exit; those of a run that was killed are removed by the
# next one. Prints "PASS/FAIL/SKIP name" lines and ends with
# "N passed, M failed, K skipped".
#
# Needs: mmdebstrap, podman (runc), debhelper, lintian, kubectl, curl and
# Debian's archive (mmdebstrap fetches the packages of the roots).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=netns-tests/lib.sh
. "$here/lib.sh"
cd "$RXLAT_ROOT" || exit 1
# every name of this file's tests: rxlat-dep<pid>-... (lib.sh sweeps by it)
RXLAT_T_PREFIX=rxlat-dep
PKTGEN=$BUILD/rxlat-pktgen
PORT=7790
PROM=9474 # the DaemonSet's port, in the node's namespace
VERSION=$(cat VERSION)
DEB=$BUILD/rxlat_${VERSION}_$(dpkg --print-architecture).deb
DAEMONSET=configs/rxlat-daemonset.yaml
export RXLAT_TEST_TIMEOUT=${RXLAT_TEST_TIMEOUT:-600}
NS_O='' NS_H='' NS_P='' MAC_H='' # set by node_setup

# podman as it runs on these machines: runc (crun refuses a hybrid cgroup
# layout), cgroupfs, and no default ulimits above the host's hard limits
podman_conf()	# FILE
{
	cat >"$1" <<-'EOF'
		[containers]
		default_ulimits = []
		[engine]
		runtime = "runc"
		cgroup_manager = "cgroupfs"
	EOF
	export CONTAINERS_CONF=$1
}

# ------------------------------------------------------------ clean-up
# What lib.sh's clean-up does not know: mounts in a root, containers,
# images, and mmdebstrap at work (with mounts of its own in its root). A
# test adds them to DEP_MOUNTS, DEP_CONTAINERS, DEP_IMAGES, DEP_PIDS.

dep_cleanup()
{
	local i m kids
	# mmdebstrap undoes its mounts on SIGTERM: let it, before anything
	# under T_DIR is removed
	for i in "${DEP_PIDS[@]}"; do
		# image.sh's mmdebstrap too: a shell waits for its child first
		mapfile -t kids < <(ps -o pid= --ppid "$i" 2>/dev/null)
		kill -TERM "${kids[@]}" "$i" 2>/dev/null
	done
	for i in "${DEP_PIDS[@]}"; do
		t_wait_pid "$i" 30 >/dev/null 2>&1 || kill -KILL "$i" 2>/dev/null
	done
	for i in "${DEP_CONTAINERS[@]}"; do
		podman rm -f -t 0 "$i" >/dev/null 2>&1
	done
	for i in "${DEP_IMAGES[@]}"; do
		podman rmi -f "$i" >/dev/null 2>&1
	done
	for ((i = ${#DEP_MOUNTS[@]} - 1; i >= 0; i--)); do
		umount -l "${DEP_MOUNTS[i]}" 2>/dev/null
	done
	# and whatever a process killed in its clean-up left mounted there
	if [[ -n ${T_DIR:-} ]]; then
		while read -r m; do
			umount -l "$m" 2>/dev/null
		done < <(awk -v d="$T_DIR/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r)
	fi
	# never rm -rf across a mount that is still there (/dev bound in a root)
	if [[ -n ${T_DIR:-} ]] && awk -v d="$T_DIR/" 'index($2, d) == 1 { f = 1 } END { exit !f }' /proc/self/mounts; then
		echo "# mounts left under $T_DIR: not removed"
		T_DIR=''
	fi
}

# The test's own EXIT trap: these first, then lib.sh's, with the status.
dep_begin()
{
	DEP_MOUNTS=() DEP_CONTAINERS=() DEP_IMAGES=() DEP_PIDS=()
	trap 'rc=$?; dep_cleanup; (exit $rc); _t_cleanup' EXIT
	podman_conf "$T_DIR/containers.conf"
}

# Leftovers of runs that were killed (their pid is gone): containers,
# images, mounts under /tmp, directories. Their namespaces go with
# lib.sh's sweep.
sweep_dead_runs()
{
	local name pid m
	podman_conf "$(mktemp /tmp/rxlat-dep-conf.XXXXXX)"
	for name in $(podman ps -a --format '{{.Names}}' 2>/dev/null); do
		[[ $name == "$RXLAT_T_PREFIX"[0-9]* ]] || continue
		pid=${name#"$RXLAT_T_PREFIX"} pid=${pid%%[!0-9]*}
		kill -0 "$pid" 2>/dev/null || podman rm -f -t 0 "$name" >/dev/null 2>&1
	done
	for name in $(podman images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null); do
		[[ $name == "localhost/$RXLAT_T_PREFIX"[0-9]* ]] || continue
		pid=${name#"localhost/$RXLAT_T_PREFIX"} pid=${pid%%[!0-9]*}
		kill -0 "$pid" 2>/dev/null || podman rmi -f "$name" >/dev/null 2>&1
	done
	while read -r m; do
		pid=${m#/tmp/"$RXLAT_T_PREFIX"} pid=${pid%%[!0-9]*}
		kill -0 "$pid" 2>/dev/null || umount -l "$m"
	done < <(awk -v p="/tmp/$RXLAT_T_PREFIX" 'index($2, p) == 1 && substr($2, length(p) + 1, 1) ~ /[0-9]/ { print $2 }' \
		/proc/self/mounts | sort -r)
	for m in /tmp/"$RXLAT_T_PREFIX"[0-9]*; do
		[[ -e $m ]] || continue
		pid=${m#/tmp/"$RXLAT_T_PREFIX"} pid=${pid%%[!0-9]*}
		kill -0 "$pid" 2>/dev/null || rm -rf --one-file-system -- "$m"
	done
	for m in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		[[ $m == "$RXLAT_T_PREFIX"[0-9]*-* ]] || continue
		pid=${m#"$RXLAT_T_PREFIX"} pid=${pid%%[!0-9]*}
		kill -0 "$pid" 2>/dev/null || t_sweep_prefix "$RXLAT_T_PREFIX$pid"
	done
	rm -f "$CONTAINERS_CONF"
	unset CONTAINERS_CONF
}

# ------------------------------------------------------------ the DaemonSet

# The DaemonSet's container arguments, one a line
ds_args()
{
	gojq --yaml-input -r 'select(.kind == "DaemonSet") | .spec.template.spec.containers[0].args[]' \
		"$DAEMONSET"
}

# The DaemonSet's --web-config file (the last two arguments)
ds_web_config()
{
	ds_args | tail -n 2 | sed -n '1{/^--web-config$/!q};2p'
}

# The DaemonSet's arguments less --web-config: the image's CMD
ds_cmd_args()
{
	ds_args | head -n -2
}

ds_field()	# JQ-PATH (of the first container)
{
	gojq --yaml-input -r "select(.kind == \"DaemonSet\") | .spec.template.spec.containers[0] | $1" \
		"$DAEMONSET"
}

# The Containerfile's CMD, one argument a line
containerfile_cmd()
{
	sed -n 's/^CMD //p' configs/Containerfile | gojq -r '.[]'
}

# kubectl's typed decoding of the DaemonSet (what apply sends), offline
# (apply --dry-run=client needs a server's API list even with
# --validate=false):
# "set image --local" decodes into the API's Go types, so a wrong type or
# an unknown kind is an error; an unknown field is dropped, so every
# field of the file must come back with its value. Prints what is wrong.
ds_decode()	# FILE
{
	gojq --yaml-input -c 'select(.kind == "DaemonSet")' "$1" >"$T_DIR/ds.json" 2>&1 || {
		echo "not YAML"
		return 1
	}
	[[ -s $T_DIR/ds.json ]] || {
		echo "no DaemonSet"
		return 1
	}
	# (set image prints nothing when the image stays the same)
	kubectl set image --local -f "$T_DIR/ds.json" "rxlat=checked:1" -o json >"$T_DIR/typed.json" \
		2>"$T_DIR/typed.err" || {
		tail -n 1 "$T_DIR/typed.err"
		return 1
	}
	gojq -nr --slurpfile a "$T_DIR/ds.json" --slurpfile b "$T_DIR/typed.json" '
		($a[0] | .spec.template.spec.containers[0].image = "checked:1") as $a | $b[0] as $b
		| [$a | paths(scalars)] | map(select(. as $p | ($a | getpath($p)) != ($b | getpath($p))))
		| map(map(tostring) | join(".")) | if length > 0 then "unknown or changed: " + join(", ") else empty end' |
		grep . && return 1
	return 0
}

test_daemonset()
{
	local out names web
	require_cmd tools kubectl gojq || return 1
	# every object of the file parses (kubectl reads them without a cluster)
	names=$(kubectl label --local -f "$DAEMONSET" checked=yes -o name 2>&1 | paste -sd ' ' -)
	assert_eq objects "namespace/rxlat serviceaccount/rxlat daemonset.apps/rxlat" "$names"
	if out=$(ds_decode "$DAEMONSET"); then
		pass decodes_typed
	else
		fail decodes_typed "$out"
	fi
	# and the check is one: a wrong type, an unknown field, an unknown kind
	sed 's/hostNetwork: true/hostNetwork: "yes"/' "$DAEMONSET" >"$T_DIR/bad_type.yaml"
	sed 's/hostPID: true/hostPid: true/' "$DAEMONSET" >"$T_DIR/bad_field.yaml"
	sed 's/^kind: DaemonSet$/kind: DaemonSett/' "$DAEMONSET" >"$T_DIR/bad_kind.yaml"
	for out in bad_type bad_field bad_kind; do
		assert_true "refuses_$out" "a broken manifest passed" \
			eval '! ds_decode "$T_DIR/$out.yaml" >/dev/null'
	done
	assert_eq args_equal_image_cmd "$(containerfile_cmd | paste -sd ' ' -)" \
		"$(ds_cmd_args | paste -sd ' ' -)" "the DaemonSet's args, less --web-config, against configs/Containerfile's CMD"
	# /metrics behind TLS and basic auth, from the Secret, mounted read-only
	web=$(ds_web_config)
	assert_eq web_config_in_secret "${web%/*} true rxlat-web" \
		"$(ds_field '.volumeMounts[] | select(.name == "web") | "\(.mountPath) \(.readOnly)"') $(gojq --yaml-input -r \
			'select(.kind == "DaemonSet") | .spec.template.spec.volumes[] | select(.name == "web") | .secret.secretName' \
			"$DAEMONSET")" "--web-config's folder, its mount and the Secret"
	assert_eq scrape_scheme https "$(gojq --yaml-input -r 'select(.kind == "DaemonSet") |
		.spec.template.metadata.annotations["prometheus.io/scheme"]' "$DAEMONSET")"
	assert_eq probe_port "$PROM" "$(ds_field .livenessProbe.tcpSocket.port)" \
		"the liveness probe (a kubelet probe has no credentials)"
	assert_eq host_network_pid "true true" "$(gojq --yaml-input -r 'select(.kind == "DaemonSet") |
		.spec.template.spec | "\(.hostNetwork) \(.hostPID)"' "$DAEMONSET")"
	assert_eq not_privileged false "$(ds_field .securityContext.privileged)"
	# the capabilities of the systemd unit, no more
	assert_eq caps_of_unit \
		"$(sed -n 's/^CapabilityBoundingSet=//p' configs/rxlat.service.in | tr ' ' '\n' | sed 's/^CAP_//' | sort | paste -sd ' ' -)" \
		"$(ds_field '.securityContext.capabilities.add[]' | sort | paste -sd ' ' -)"
	assert_eq tolerates_all Exists "$(gojq --yaml-input -r 'select(.kind == "DaemonSet") |
		.spec.template.spec.tolerations[].operator' "$DAEMONSET")"
	assert_eq scrape_port "$PROM" "$(gojq --yaml-input -r 'select(.kind == "DaemonSet") |
		.spec.template.metadata.annotations["prometheus.io/port"]' "$DAEMONSET")"
	assert_match args_port ":$PROM\$" "$(ds_cmd_args | paste -sd ' ' -)" "the DaemonSet's --prometheus"
	assert_eq node_arch "$(dpkg --print-architecture)" "$(gojq --yaml-input -r 'select(.kind == "DaemonSet") |
		.spec.template.spec.nodeSelector["kubernetes.io/arch"]' "$DAEMONSET")" \
		"the DaemonSet's nodes: those of the image make image makes here"
	# and its image is make image's, whose tag names that architecture
	assert_eq image_of_make_image "$(make -n image 2>/dev/null | awk '$1 == "./scripts/image.sh" { print $NF }')" \
		"$(ds_field .image)" "the DaemonSet's image against make image's name"
}

# ------------------------------------------------------------ the package

# the package names of a .deb's Depends, without versions
deb_depends()	# DEB
{
	dpkg-deb -f "$1" Depends | tr ',' '\n' | awk '{ print $1 }' | sort | paste -sd ' ' -
}

# make deb ARCH=arm64: the arm64 package, cross-built from the arm64 tree
# (its sysroot), next to the host's: the same files, the same library
# packages, arm64 programs; lintian clean (make deb runs it). Needs no arm64
# machine: make test's arm64 kernels run the programs themselves.
test_deb_arm64()
{
	local deb=$BUILD/arm64/rxlat_${VERSION}_arm64.deb t0 x
	require_cmd tools dpkg-buildpackage lintian aarch64-linux-gnu-gcc readelf || return 1
	dep_begin
	t0=$SECONDS
	if make deb ARCH=arm64 BUILD="$BUILD/arm64" >"$T_DIR/deb.log" 2>&1 && [[ -e $deb ]]; then
		pass deb_builds
	else
		t_abort deb_builds "make deb ARCH=arm64 failed: $(grep -v '^make' "$T_DIR/deb.log" | tail -n 2)"
	fi
	log "make deb ARCH=arm64: $((SECONDS - t0)) s, $(stat -c %s "$deb") bytes; Depends: $(dpkg-deb -f "$deb" Depends)"
	assert_eq lintian_no_errors "" "$(grep '^E:' "$T_DIR/deb.log" | head -n 3)" "lintian in make deb"
	assert_eq architecture arm64 "$(dpkg-deb -f "$deb" Architecture)"
	[[ -e $DEB ]] || make deb >"$T_DIR/deb-host.log" 2>&1 || t_abort host_deb "make deb failed"
	assert_eq files_as_host "$(dpkg-deb -c "$DEB" | awk '{ print $6 }')" \
		"$(dpkg-deb -c "$deb" | awk '{ print $6 }')" "paths of the arm64 package against the host's"
	assert_eq depends_as_host "$(deb_depends "$DEB")" "$(deb_depends "$deb")" \
		"library packages of the arm64 package against the host's"
	# their minimum versions from the same symbols files, not the arm64
	# packages' shlibs (which the host's package does not use)
	assert_eq depends_versions_as_host "$(dpkg-deb -f "$DEB" Depends)" "$(dpkg-deb -f "$deb" Depends)"
	x=$T_DIR/arm64
	dpkg-deb -x "$deb" "$x"
	assert_eq rxlat_aarch64 AArch64 \
		"$(elf_machine "$x/usr/sbin/rxlat")" "readelf -h usr/sbin/rxlat"
	for f in "$x"/usr/lib/rxlat/*.o; do
		assert_eq "bpf_${f##*/}" "Linux BPF" \
			"$(elf_machine "$f")" "readelf -h ${f#"$x"}"
	done
}

# Paths of ROOT's files and links, without what apt and dpkg keep of their
# own (state, caches, logs) and the mount points
root_files()	# ROOT
{
	(cd "$1" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run -o -path ./tmp \
		-o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \) -prune \
		-o -print | sort)
}

# A fresh Debian 12 root with rxlat's libraries (the package's Depends),
# so that apt-get install of the .deb needs no archive
make_root()	# DIR
{
	local deps
	deps=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | awk '{ print $1 }' | paste -sd , -)
	dep_run "$T_DIR/mmdebstrap.log" env TMPDIR="$T_DIR" mmdebstrap --quiet --variant=minbase \
		--include="$deps" bookworm "$1"
}

# CMD in the background, its output in LOG, waited for: a stop signal
# ends the wait at once, and the clean-up stops CMD (DEP_PIDS)
dep_run()	# LOG CMD...
{
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	DEP_PIDS+=("$!")
	wait "$!"
}

root_mount()	# ROOT
{
	local d=$1
	mount -t proc proc "$d/proc" && DEP_MOUNTS+=("$d/proc") &&
		mount -t sysfs sysfs "$d/sys" && DEP_MOUNTS+=("$d/sys") &&
		mount --bind "$RXLAT_BPFFS" "$d/sys/fs/bpf" && DEP_MOUNTS+=("$d/sys/fs/bpf") &&
		mount --bind /dev "$d/dev" && DEP_MOUNTS+=("$d/dev")
}

test_deb()
{
	local root t0 out before after unit f missing
	require_cmd tools mmdebstrap lintian dpkg-buildpackage dh systemd-analyze gojq || return 1
	dep_begin
	t0=$SECONDS
	if make deb >"$T_DIR/deb.log" 2>&1 && [[ -e $DEB ]]; then
		pass deb_builds
	else
		t_abort deb_builds "make deb failed: $(grep -v '^make' "$T_DIR/deb.log" | tail -n 2)"
	fi
	log "make deb: $((SECONDS - t0)) s, $(stat -c %s "$DEB") bytes; Depends: $(dpkg-deb -f "$DEB" Depends)"
	out=$(lintian --allow-root --fail-on error "$DEB" 2>&1)
	assert_eq lintian_no_errors 0 "$?" "lintian: $(grep '^E:' <<<"$out" | head -n 3)"
	[[ -n $out ]] && log "lintian: $(paste -sd ';' <<<"$out")"

	root=$T_DIR/root
	t0=$SECONDS
	make_root "$root" || t_abort root "mmdebstrap failed: $(tail -n 2 "$T_DIR/mmdebstrap.log")"
	log "mmdebstrap (minbase and the Depends): $((SECONDS - t0)) s"
	root_mount "$root" || t_abort root_mounts "cannot mount proc, sys, bpffs and dev in the root"
	before=$(root_files "$root")
	cp "$DEB" "$root/tmp/"
	if chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		"/tmp/${DEB##*/}" >"$T_DIR/install.log" 2>&1; then
		pass apt_install
	else
		t_abort apt_install "$(tail -n 2 "$T_DIR/install.log")"
	fi
	rm -f "$root/tmp/${DEB##*/}"
	assert_match version "^rxlat $VERSION " "$(chroot "$root" rxlat --version 2>&1)"
	assert_eq heatmap_version "rxlat-heatmap $VERSION" "$(chroot "$root" rxlat-heatmap --version 2>&1)"
	missing=''
	for f in usr/sbin/rxlat usr/bin/rxlat-heatmap usr/share/man/man1/rxlat-heatmap.1.gz usr/lib/rxlat/rxlat_xdp.bpf.o usr/lib/rxlat/rxlat_tc.bpf.o \
		usr/lib/rxlat/xdp-dispatcher.o usr/share/man/man8/rxlat.8.gz lib/systemd/system/rxlat.service \
		etc/default/rxlat usr/share/rxlat/prometheus.yml usr/share/rxlat/rxlat.rules.yml \
		usr/share/rxlat/rxlat-dashboard.json; do
		[[ -e $root/$f ]] || missing+=" /$f"
	done
	assert_eq files "" "$missing" "not installed"
	# rxlat names the installed objects for xdp-loader and tc
	assert_match objects_path 'BPF objects for xdp-loader and tc: /usr/lib/rxlat$' \
		"$(chroot "$root" rxlat --help | grep 'BPF objects')"
	assert_match conffile '^ /etc/default/rxlat [0-9a-f]+$' \
		"$(chroot "$root" dpkg-query -W -f '${Conffiles}\n' rxlat | grep .)"
	assert_eq not_enabled "" "$(find "$root/etc/systemd" -name 'rxlat*' 2>/dev/null)" \
		"links that enable the unit"
	# the unit as installed, its command made a path of the root, its man
	# page the installed one
	unit=$T_DIR/rxlat.service
	sed "s|^ExecStart=/usr/sbin/rxlat|ExecStart=$root/usr/sbin/rxlat|" \
		"$root/lib/systemd/system/rxlat.service" >"$unit"
	assert_match unit_exec '^ExecStart=/usr/sbin/rxlat ' \
		"$(grep '^ExecStart=' "$root/lib/systemd/system/rxlat.service")"
	if out=$(MANPATH=$root/usr/share/man systemd-analyze verify "$unit" 2>&1); then
		pass systemd_analyze_verify
	else
		fail systemd_analyze_verify "$out"
	fi

	# a measurement by the installed binary, in the root, over a veth pair
	ns_pair || t_abort setup "cannot make the veth pair"
	local progs_before
	progs_before=$(rxlat_loose_progs)
	# the veth stands in for a NIC: stamped in XDP (nic_stamper in lib.sh),
	# or at tc where the kernel's XDP cannot carry a stamp
	local stamp=(--xdp-mode native) src=xdp
	xdp_meta_refused && stamp=(--tc) src=tc
	RXLAT=chroot RXLAT_ARGS=("$root" /usr/sbin/rxlat -i "$IF_B" "${stamp[@]}")
	start_rxlat || return 1
	pair_udp udp "$NS_A" 200
	sleep 1.2
	stop_rxlat || return 1
	# every datagram seen at ip_rcv; the fallback set's runs before tc
	# ingress, where a tc-stamped packet counts as source none
	assert_eq ip_rcv_200 200 "$(stage_sum ip_rcv '(.sources | add)')" "ip_rcv's packets, by source"
	if [[ $src == xdp ]]; then
		assert_eq ip_rcv_200_stamped 200 "$(stage_sum ip_rcv .sources.xdp)" "ip_rcv samples stamped in XDP"
	fi
	assert_eq udp_queue_rcv_200 200 "$(stage_sum udp_queue_rcv ".sources.$src")"
	# where rxlat says it sees TCP reads only (no trampolines for
	# skb_consume_udp), no UDP read may be counted
	if grep -q 'sock_read.*TCP only' "$T_DIR/rxlat.err"; then
		assert_eq sock_read_tcp_only 0 "$(stage_sum sock_read .count)"
	else
		assert_eq sock_read_200 200 "$(stage_sum sock_read ".sources.$src")"
	fi
	assert_eq unstamped 0 "$(stage_sum udp_queue_rcv .sources.none)"
	out=$(rxlat_leftovers "$progs_before" "$NS_B" "$IF_B")
	assert_eq nothing_attached "" "$out"

	if chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q rxlat \
		>"$T_DIR/purge.log" 2>&1; then
		pass apt_purge
	else
		fail apt_purge "$(tail -n 2 "$T_DIR/purge.log")"
	fi
	assert_eq purge_forgotten "" "$(chroot "$root" dpkg-query -W -f '${Status}' rxlat 2>/dev/null)" \
		"dpkg's status of rxlat after the purge"
	after=$(root_files "$root")
	assert_eq purge_leaves_nothing "" "$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | paste -sd ' ' -)" \
		"files that differ from before the install"
}

# ------------------------------------------------------------ the image

# The node NS_H, its uplink eth0, and a routed pod NS_P behind it (lib.sh)
node_setup()
{
	pod_behind_host eth0 || return 1
	MAC_H=$MAC_UP
	sleep 1 # the links' own IPv6 reports go before rxlat counts
}

# METRIC's value summed over the lines of $T_DIR/metrics.txt that have
# every label=value given (value * : the label is there, - : it is not)
metric_sum()	# METRIC LABEL=VALUE...
{
	local m=$1
	shift
	awk -v m="$m" -v want="$*" '
		index($0, m "{") == 1 {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) {
				split(w[i], kv, "=")
				if (kv[2] == "*") { if (index($0, kv[1] "=\"") == 0) next }
				else if (kv[2] == "-") { if (index($0, kv[1] "=\"") > 0) next }
				else if (index($0, kv[1] "=\"" kv[2] "\"") == 0) next
			}
			s += $NF
		}
		END { print s + 0 }' "$T_DIR/metrics.txt"
}

# The Secret rxlat-web as the DaemonSet mounts it, in $T_DIR/web: web.yml
# naming tls.crt and tls.key beside it, and the scraper's user, owned by
# root at the Secret's mode; the CA that signed tls.crt in $T_DIR/ca.
WEB_USER=prometheus WEB_PASSWORD='scrape me'
web_secret()
{
	tls_certs "$T_DIR/ca" || return 1
	mkdir -p "$T_DIR/web" && cp "$T_DIR/ca/server.crt" "$T_DIR/web/tls.crt" &&
		cp "$T_DIR/ca/server.key" "$T_DIR/web/tls.key" || return 1
	printf 'tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\nbasic_auth_users:\n  %s: %s\n' \
		"$WEB_USER" "$(bcrypt_hash "$WEB_PASSWORD")" >"$T_DIR/web/web.yml" || return 1
	chmod 0400 "$T_DIR"/web/*
}

# The image run as the DaemonSet runs it, the Secret's files where it mounts them
podman_run()	# NAME
{
	local caps cg web
	caps=$(ds_field '.securityContext.capabilities.add[]' | sed 's/^/CAP_/' | paste -sd , -)
	cg=$(cgroup2_root)
	web=$(ds_field '.volumeMounts[] | select(.name == "web") | .mountPath')
	mapfile -t ARGS < <(ds_args)
	# the DaemonSet's arguments as they are: rxlat's default, the tc stamper
	podman run -d --name "$1" --network "ns:/run/netns/$NS_H" --pid host \
		--cap-drop all --cap-add "$caps" --security-opt no-new-privileges --read-only \
		-v "$RXLAT_BPFFS:/sys/fs/bpf" ${cg:+-v "$cg:/sys/fs/cgroup:ro"} -v "$T_DIR/web:$web:ro" \
		"$IMAGE" "${ARGS[@]}" >"$T_DIR/podman_run.out" 2>&1
}

# /metrics from the node's namespace, outside the container, as the
# scraper gets it (https, the CA, the user): into FILE, or nowhere
scrape()	# [FILE]
{
	in_ns "$NS_H" curl -sf --max-time 5 --cacert "$T_DIR/ca/ca.crt" -u "$WEB_USER:$WEB_PASSWORD" \
		-o "${1:-/dev/null}" "https://127.0.0.1:$PROM/metrics"
}

# Waits until /metrics answers; 1 after 30 s
metrics_up()
{
	local i
	for ((i = 0; i < 150; i++)); do
		scrape && return 0
		sleep 0.2
	done
	return 1
}

test_image()
{
	local t0 size name pid ids out rss hwm limit
	require_cmd tools mmdebstrap podman curl gojq openssl htpasswd || return 1
	dep_begin
	[[ -e $DEB ]] || make deb >"$T_DIR/deb.log" 2>&1 || t_abort deb "make deb failed"
	IMAGE=localhost/$T_PREFIX:test
	DEP_IMAGES+=("$IMAGE")
	t0=$SECONDS
	if dep_run "$T_DIR/image.log" env TMPDIR="$T_DIR" ./scripts/image.sh "$DEB" "$IMAGE"; then
		pass image_builds
	else
		t_abort image_builds "$(grep -v mount "$T_DIR/image.log" | tail -n 2)"
	fi
	size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
	log "image: $((SECONDS - t0)) s to build, $size bytes"
	assert_le image_small $((32 << 20)) "$size" "image size in bytes"
	assert_eq image_arch "$(dpkg-deb -f "$DEB" Architecture)" \
		"$(podman image inspect --format '{{.Architecture}}' "$IMAGE")" "the image's architecture against its package's"
	assert_eq entrypoint /usr/sbin/rxlat "$(podman image inspect --format '{{join .Config.Entrypoint " "}}' "$IMAGE")"
	assert_eq cmd_is_daemonset_args "$(ds_cmd_args | paste -sd ' ' -)" \
		"$(podman image inspect --format '{{join .Config.Cmd " "}}' "$IMAGE")"
	assert_match version "^rxlat $VERSION " "$(podman run --rm --network none "$IMAGE" --version 2>&1)"
	assert_eq heatmap_runs "rxlat-heatmap $VERSION" "$(podman run --rm --network none \
		--entrypoint /usr/bin/rxlat-heatmap "$IMAGE" --version 2>&1)" "the image's rxlat-heatmap"

	node_setup || t_abort setup "cannot make the node"
	web_secret || t_abort web_secret "openssl or htpasswd could not make the Secret's files"
	name=$T_PREFIX-rxlat
	DEP_CONTAINERS+=("$name")
	podman_run "$name" || t_abort podman_run "$(tail -n 2 "$T_DIR/podman_run.out")"
	metrics_up || t_abort metrics_up "no /metrics on the node's port $PROM: $(podman logs "$name" 2>&1 | tail -n 2)"
	pass runs_with_daemonset_args
	# the node's address serves no metrics in clear text, nor to a client without the password
	assert_eq no_clear_text "" "$(in_ns "$NS_H" curl -s --max-time 5 "http://127.0.0.1:$PROM/metrics" 2>/dev/null |
		grep -m 1 -o '^rxlat_[a-z_]*')" "/metrics over http"
	assert_eq no_password 401 "$(in_ns "$NS_H" curl -s --max-time 5 --cacert "$T_DIR/ca/ca.crt" -o /dev/null \
		-w '%{http_code}' "https://127.0.0.1:$PROM/metrics")" "/metrics over https without the password"
	pid=$(podman inspect --format '{{.State.Pid}}' "$name")
	log "rxlat in the container: $(podman logs "$name" 2>&1 | grep -m 1 'map memory')"

	t_bg recv in_ns "$NS_P" "$PKTGEN" recv --port "$PORT" --count 200 --timeout 30
	local recv=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv" || t_abort receiver "rxlat-pktgen recv did not start"
	in_ns "$NS_O" "$PKTGEN" send --dev o0 --dst-mac "$MAC_H" --src-ip 10.41.0.1 --dst-ip 10.41.1.2 \
		--dport "$PORT" --count 200 --flows 8 >/dev/null 2>&1 || t_abort send "rxlat-pktgen send failed"
	t_wait_pid "$recv" 40
	assert_eq received "received 200 valid 200 invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	sleep 1.2
	scrape "$T_DIR/metrics.txt" || t_abort scrape "curl from the node's namespace failed"
	# the node's own ip_rcv (no netns label; from tc where it runs after tc
	# ingress, else counted as none) and the pod's stages (its label), from
	# the tc stamp that crossed into the pod
	assert_eq node_ip_rcv 200 "$(metric_sum rxlat_stage_samples_total stage=ip_rcv netns=- ifname=eth0)" \
		"the node's own ip_rcv samples"
	assert_eq pod_ip_rcv 200 "$(metric_sum rxlat_stage_samples_total stage=ip_rcv netns='*' source=tc)"
	assert_eq pod_udp_queue_rcv 200 "$(metric_sum rxlat_stage_samples_total stage=udp_queue_rcv netns='*' source=tc)"
	if podman logs "$name" 2>&1 | grep -q 'sock_read.*TCP only'; then
		assert_eq pod_sock_read_tcp_only 0 "$(metric_sum rxlat_stage_samples_total stage=sock_read netns='*')"
	else
		assert_eq pod_sock_read 200 "$(metric_sum rxlat_stage_samples_total stage=sock_read netns='*' source=tc)"
	fi
	assert_eq histogram_count 200 "$(metric_sum rxlat_stage_latency_seconds_count stage=udp_queue_rcv netns='*')"

	# memory: the container's rxlat, from the host
	rss=$(proc_status_kb "$pid" VmRSS) hwm=$(proc_status_kb "$pid" VmHWM)
	limit=$(ds_field .resources.limits.memory)
	log "rxlat RSS in the container: ${rss:-?} kB, peak ${hwm:-?} kB; the DaemonSet's limit $limit"
	[[ $limit =~ ^([0-9]+)Mi$ ]] && assert_le rss_under_limit $((BASH_REMATCH[1] * 1024)) "${hwm:-0}" "peak RSS in kB"

	# podman stop: SIGTERM, rxlat detaches and exits
	ids=$(proc_bpf_prog_ids "$pid")
	podman stop -t 10 "$name" >/dev/null 2>&1
	assert_eq stop_exit_status 0 "$(podman inspect --format '{{.State.ExitCode}}' "$name")"
	out=$(rxlat_leftovers "=$ids" "$NS_H" eth0)
	assert_eq nothing_after_stop "" "$out"
	# podman kill: SIGKILL, the kernel releases the links
	podman start "$name" >/dev/null 2>&1 || t_abort restart "podman start failed"
	metrics_up || t_abort restart_metrics "no /metrics after podman start"
	pid=$(podman inspect --format '{{.State.Pid}}' "$name")
	ids=$(proc_bpf_prog_ids "$pid")
	assert_ne attached_again "" "$ids" "programs held by the restarted rxlat"
	podman kill "$name" >/dev/null 2>&1
	podman wait "$name" >/dev/null 2>&1
	out=$(rxlat_leftovers "=$ids" "$NS_H" eth0)
	assert_eq nothing_after_kill "" "$out"
	podman rm -f "$name" >/dev/null 2>&1
	podman rmi -f "$IMAGE" >/dev/null 2>&1
	assert_eq no_container "" "$(podman ps -a --format '{{.Names}}' | grep -F "$T_PREFIX")"
	assert_eq no_image "" "$(podman images --format '{{.Repository}}' | grep -F "$T_PREFIX")"
}

# ------------------------------------------------------------ running

# the tests themselves (what "deploy.sh" runs under its counter below)
if [[ ${1:-} == --tests ]]; then
	suite_begin
	run_test daemonset test_daemonset
	run_test deb test_deb
	run_test deb_arm64 test_deb_arm64
	run_test image test_image
	suite_end
	exit 0
fi

if [[ $EUID -ne 0 ]]; then
	echo "deploy.sh: must run as root (chroot, namespaces, podman, BPF)" >&2
	exit 1
fi
PASSED=0 FAILED=0 SKIPPED=0
trap _t_forward_signal INT TERM
sweep_dead_runs
t0=$SECONDS
t_stream emit bash "$0" --tests
# what a run may leave: namespaces, mounts, containers and images of its
# name, directories under /tmp
left=$(
	ip netns list 2>/dev/null | awk '{ print $1 }' | grep "^${RXLAT_T_PREFIX}[0-9]"
	awk '{ print $2 }' /proc/self/mounts | grep "^/tmp/${RXLAT_T_PREFIX}[0-9]"
	ls -d /tmp/"$RXLAT_T_PREFIX"[0-9]* 2>/dev/null
	podman_conf "$(mktemp /tmp/rxlat-dep-conf.XXXXXX)"
	podman ps -a --format '{{.Names}}' | grep "^${RXLAT_T_PREFIX}[0-9]"
	podman images --format '{{.Repository}}' | grep "${RXLAT_T_PREFIX}[0-9]"
	rm -f "$CONTAINERS_CONF"
)
if [[ -z $left ]]; then
	emit "PASS deploy.nothing_left_behind"
else
	emit "FAIL deploy.nothing_left_behind: $(paste -sd ' ' <<<"$left")"
fi
echo "# deploy: $((SECONDS - t0)) s"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[[ -n $_T_STOP ]] && exit 130
((FAILED == 0 && PASSED > 0))
