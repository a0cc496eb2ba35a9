# SPDX-License-Identifier: GPL-2.0
# What operators install: the Debian package (make deb), the container
# image (make image), the DaemonSet (configs/rxlat-daemonset.yaml).
# Included from the top Makefile.

# a cross build (make deb ARCH=arm64) makes the package of that architecture
DEB_ARCH := $(or $(CROSS_DEB_ARCH),$(shell dpkg --print-architecture 2>/dev/null))
DEB      := $(BUILD)/rxlat_$(VERSION)_$(DEB_ARCH).deb
# the tag names the architecture, that of the package the image is made
# from (image.sh makes it of this machine's only)
IMAGE    ?= localhost/rxlat:$(VERSION)-$(DEB_ARCH)

.PHONY: deb

# Cross: dpkg-buildpackage -a; the build dependencies of that architecture
# are in the tree's root of its packages, not installed (-d), which the
# package's build reuses (SYSROOT); debian/rules takes the libraries'
# dependencies from the control files kept there. nocheck: dh would
# otherwise warn of tests, which the package's build never runs.
ifneq ($(CROSS_DEB_ARCH),)
DEB_CROSS_ARGS := -a$(CROSS_DEB_ARCH) -d
DEB_CROSS_ENV  := SYSROOT=$(abspath $(SYSROOT)) CC=$(CC) DEB_BUILD_OPTIONS="$(strip $(DEB_BUILD_OPTIONS) nocheck)"
deb: $(SYSROOT)/.stamp
endif

# The package's build sees none of this make's variables (BUILD, and
# MAKEFLAGS, which would carry a command line's BUILD into its clean).
# dpkg-buildpackage writes next to the source tree: the source is copied
# to build/deb/rxlat-VERSION, so its outputs land in build/deb, and the
# .deb is copied to build/. debian/changelog is made there from VERSION,
# the one place the version is set.
deb:
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/rxlat-$(VERSION)
	tar -c --exclude-vcs --exclude=./$(BUILD) --exclude=./build . | \
		tar -x -C $(BUILD)/deb/rxlat-$(VERSION)
	{ echo "rxlat ($(VERSION)) unstable; urgency=medium"; echo; \
	  echo "  * rxlat $(VERSION)."; echo; \
	  echo " -- $$(sed -n 's/^Maintainer: //p' debian/control)  $$(git log -1 --format=%cD 2>/dev/null || date -R)"; \
	} > $(BUILD)/deb/rxlat-$(VERSION)/debian/changelog
	cd $(BUILD)/deb/rxlat-$(VERSION) && env -u BUILD -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(DEB_CROSS_ENV) \
		dpkg-buildpackage -b -us -uc $(DEB_CROSS_ARGS)
	cp $(BUILD)/deb/rxlat_$(VERSION)_$(DEB_ARCH).deb $(DEB)
	lintian --allow-root --fail-on error $(DEB)

# The image: a Debian root made by mmdebstrap with the package installed,
# cut down to rxlat and its libraries, FROM scratch (no registry needed).
.PHONY: image
ifneq ($(CROSS_DEB_ARCH),)
# its root is made by running the package's scripts: on this host's
# architecture only (said before the package is built, not after)
image:
	@echo "error: the $(CROSS_DEB_ARCH) image is made on a machine of that architecture: run make image there" >&2; exit 1
else
image: deb
	./scripts/image.sh $(DEB) $(IMAGE)
endif

# netns-tests/deploy.sh alone (it is also a part of make test): the
# package, the image and the DaemonSet; builds the deb and the image itself
.PHONY: test-deploy
test-deploy:
	$(MAKE) all test-binaries
	BUILD=$(BUILD) ./netns-tests/deploy.sh
