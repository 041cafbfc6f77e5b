# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/build-dev
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-dev/progsim-unit-tests[1]_include.cmake")
