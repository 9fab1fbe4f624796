# Packaging: install rules for everything that is not a binary (the binaries'
# rules are in app/CMakeLists.txt), a CPack Debian package, and the
# package_extract test. Included once, at the end of the top-level
# CMakeLists.txt, so every target and option is known here.
#
#   cmake --build build --target package   ->  build/memx-workbench_<version>_<arch>.deb
#
# Layout (relative to the install prefix, /usr in the package):
#   bin/memx-cli, bin/memx (with MEMX_BUILD_GUI)
#   share/memx/sample_clusters/*.json      cluster files the docs and tests use
#   share/memx/{gpu_catalog,model_presets}.json  copies of the compiled-in data
#   share/applications/<id>.desktop, share/metainfo/<id>.metainfo.xml
#   share/icons/hicolor/{16..256,scalable}/apps/<id>.{png,svg}
#   share/man/man1/memx-cli.1.gz, memx.1.gz
#   share/doc/memx-workbench/{copyright,changelog.gz,README.md}
include(GNUInstallDirs)

set(MEMX_APP_ID "io.github.memx_workbench.MemX")
set(MEMX_PACKAGE_NAME "memx-workbench")
set(MEMX_PACKAGING_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(MEMX_PACKAGING_BINARY_DIR "${PROJECT_BINARY_DIR}/packaging")
set(MEMX_PACKAGE_MAINTAINER "MemX Workbench developers <maintainers@memx.example.org>"
    CACHE STRING "Maintainer field of the Debian package (Name <email>)")
set(MEMX_DATADIR "${CMAKE_INSTALL_DATADIR}/memx")
set(MEMX_DOCDIR "${CMAKE_INSTALL_DATADIR}/doc/${MEMX_PACKAGE_NAME}")
file(MAKE_DIRECTORY "${MEMX_PACKAGING_BINARY_DIR}")

# --- data --------------------------------------------------------------------
# The golden/ folders are test data, not shipped.
file(GLOB MEMX_SAMPLE_CLUSTER_FILES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/sample_clusters/*.json")
install(FILES ${MEMX_SAMPLE_CLUSTER_FILES} "${PROJECT_SOURCE_DIR}/sample_clusters/README.md"
        DESTINATION "${MEMX_DATADIR}/sample_clusters")
# The catalog and presets are compiled into memx_core (resources/); these
# copies are for reading and for writing overrides, nothing loads them.
install(FILES "${PROJECT_SOURCE_DIR}/resources/gpu_catalog.json" "${PROJECT_SOURCE_DIR}/resources/model_presets.json"
        DESTINATION "${MEMX_DATADIR}")

# --- man pages ---------------------------------------------------------------
# Debian wants them compressed with gzip -9n (no name, no time stamp: the
# package stays reproducible). gzip is an essential package there; elsewhere
# the pages are installed uncompressed.
find_program(MEMX_GZIP gzip)
mark_as_advanced(MEMX_GZIP)
set(MEMX_MAN_PAGES "${MEMX_PACKAGING_DIR}/memx-cli.1")
if(MEMX_BUILD_GUI)
  list(APPEND MEMX_MAN_PAGES "${MEMX_PACKAGING_DIR}/memx.1")
endif()
foreach(page ${MEMX_MAN_PAGES})
  get_filename_component(name "${page}" NAME)
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${page}")
  if(MEMX_GZIP)
    execute_process(COMMAND "${MEMX_GZIP}" -9 -n -c "${page}"
                    OUTPUT_FILE "${MEMX_PACKAGING_BINARY_DIR}/${name}.gz" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "gzip failed on ${page}: ${rc}")
    endif()
    install(FILES "${MEMX_PACKAGING_BINARY_DIR}/${name}.gz" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
  else()
    install(FILES "${page}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
  endif()
endforeach()

# --- desktop integration (the GUI only) --------------------------------------
set(MEMX_ICON_SIZES 16 32 48 64 128 256)
if(MEMX_BUILD_GUI)
  install(FILES "${MEMX_PACKAGING_DIR}/${MEMX_APP_ID}.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
  install(FILES "${MEMX_PACKAGING_DIR}/${MEMX_APP_ID}.metainfo.xml" DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
  foreach(size ${MEMX_ICON_SIZES})
    install(FILES "${MEMX_PACKAGING_DIR}/icons/hicolor/${size}x${size}/apps/${MEMX_APP_ID}.png"
            DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps")
  endforeach()
  install(FILES "${MEMX_PACKAGING_DIR}/icons/hicolor/scalable/apps/${MEMX_APP_ID}.svg"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
endif()

# --- documentation -----------------------------------------------------------
# changelog.gz: Debian requires one per package; it is generated so that it
# always names the version being packaged (string(TIMESTAMP) honours
# SOURCE_DATE_EPOCH). Release notes proper live in the metainfo file.
string(TIMESTAMP MEMX_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE "${MEMX_PACKAGING_BINARY_DIR}/changelog"
  "${MEMX_PACKAGE_NAME} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
  "  * Upstream version ${PROJECT_VERSION}, packaged with CPack.\n"
  "    Release notes: the AppStream metainfo file and the git history.\n\n"
  " -- ${MEMX_PACKAGE_MAINTAINER}  ${MEMX_CHANGELOG_DATE}\n")
if(MEMX_GZIP)
  execute_process(COMMAND "${MEMX_GZIP}" -9 -n -c "${MEMX_PACKAGING_BINARY_DIR}/changelog"
                  OUTPUT_FILE "${MEMX_PACKAGING_BINARY_DIR}/changelog.gz")
  install(FILES "${MEMX_PACKAGING_BINARY_DIR}/changelog.gz" DESTINATION "${MEMX_DOCDIR}")
else()
  install(FILES "${MEMX_PACKAGING_BINARY_DIR}/changelog" DESTINATION "${MEMX_DOCDIR}")
endif()
install(FILES "${MEMX_PACKAGING_DIR}/copyright" "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${MEMX_DOCDIR}")
# The user guide the workbench's Help menu shows (bundled there too), with the
# screenshots it refers to.
install(FILES "${PROJECT_SOURCE_DIR}/docs/USER_GUIDE.md" DESTINATION "${MEMX_DOCDIR}")
foreach(shot window cluster pareto memory pipeline compare)
  install(FILES "${PROJECT_SOURCE_DIR}/docs/screenshots/${shot}.png" DESTINATION "${MEMX_DOCDIR}/screenshots")
endforeach()

# --- CPack: one Debian package -----------------------------------------------
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "${MEMX_PACKAGE_NAME}")
set(CPACK_PACKAGE_VENDOR "MemX Workbench developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${MEMX_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "memory-aware planner for LLM training on heterogeneous GPU clusters")
if(MEMX_BUILD_GUI)
  set(MEMX_PACKAGE_HOLDS "the Qt workbench (memx), the command-line planner\n(memx-cli)")
else()
  set(MEMX_PACKAGE_HOLDS "the command-line planner (memx-cli)")
endif()
set(CPACK_PACKAGE_DESCRIPTION
  "MemX Workbench plans the training of large language models on GPU clusters
that mix vendors and generations. Given the cluster (nodes, GPU types, links),
a model and a batch size, it searches tensor, pipeline and data parallelism,
micro-batch size, the layer split across pipeline stages, per-stage activation
recomputation and the pipeline schedule, and predicts the iteration time and
the peak memory of every GPU for each plan.

The package holds ${MEMX_PACKAGE_HOLDS} and sample cluster files in
/usr/share/memx/sample_clusters.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Dependencies on shared libraries come from dpkg-shlibdeps (package dpkg-dev).
find_program(MEMX_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(MEMX_DPKG_SHLIBDEPS)
if(MEMX_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  message(WARNING "dpkg-shlibdeps not found (package dpkg-dev): the .deb will have no Depends field")
endif()
# The GUI cannot open a window without Qt's platform plugins, which
# libqt6gui6 only recommends. dpkg-shlibdeps appends the library list.
if(MEMX_BUILD_GUI)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
endif()
set(CPACK_SOURCE_GENERATOR "TXZ")
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/out/" "/\\\\.cache/")
include(CPack)

# --- test: build the package, unpack it, run what it holds -------------------
find_program(MEMX_DPKG_DEB dpkg-deb)
mark_as_advanced(MEMX_DPKG_DEB)
if(MEMX_BUILD_TESTS AND MEMX_DPKG_DEB)
  set(MEMX_ICON_SIZES_ARG "${MEMX_ICON_SIZES}")
  string(REPLACE ";" "," MEMX_ICON_SIZES_ARG "${MEMX_ICON_SIZES_ARG}")
  add_test(NAME package_extract
    COMMAND "${CMAKE_COMMAND}"
            "-DBUILD_DIR=${PROJECT_BINARY_DIR}"
            "-DSOURCE_DIR=${PROJECT_SOURCE_DIR}"
            "-DPACKAGE_NAME=${MEMX_PACKAGE_NAME}"
            "-DVERSION=${PROJECT_VERSION}"
            "-DAPP_ID=${MEMX_APP_ID}"
            "-DWITH_GUI=${MEMX_BUILD_GUI}"
            "-DICON_SIZES=${MEMX_ICON_SIZES_ARG}"
            "-DSHLIBDEPS=${CPACK_DEBIAN_PACKAGE_SHLIBDEPS}"
            "-DDPKG_DEB=${MEMX_DPKG_DEB}"
            -P "${MEMX_PACKAGING_DIR}/test_package.cmake")
  # Building the package runs the build (target `all`) and overwrites the
  # .deb: nothing else may run meanwhile, or a relink could pull a binary
  # from under a running test.
  set_tests_properties(package_extract PROPERTIES RUN_SERIAL ON TIMEOUT 300 LABELS package)
endif()
