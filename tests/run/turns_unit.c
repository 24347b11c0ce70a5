/* turns_unit.c - the counters' turns between the processes of one run
 * (src/inject/inject_turns.c), with real processes: a held turn refuses
 * another process without making it wait, marks it as wanting, is free
 * again when given back or when its holder dies, and one GPU's turn
 * never holds back another's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject/inject_turns.h"

static char path[64];

static int open_turns(void) {
  snprintf(path, sizeof path, "/tmp/occ_turns_%d", (int)getpid());
  char lock[80];
  snprintf(lock, sizeof lock, "%s.lock", path);
  cr_assert(fopen(lock, "w"), "the lock file occcalc would make");
  int fd = occ_turns_open(path);
  cr_assert_geq(fd, 0);
  return fd;
}

static void remove_lock(void) {
  char lock[80];
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(lock);
}

/* Runs try in a child process with its own descriptor: its answer. With
 * hold, the child keeps whatever it got until a byte arrives on release
 * (or its end): its pid in *child. */
static bool child_try(uint64_t key, int *release, pid_t *child) {
  int answer[2], go[2];
  cr_assert_eq(pipe(answer), 0);
  cr_assert_eq(pipe(go), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    close(answer[0]);
    close(go[1]);
    int fd = occ_turns_open(path);
    char got = occ_turns_try(fd, key) ? 'y' : 'n';
    if (write(answer[1], &got, 1) != 1)
      _exit(2);
    char byte;
    if (read(go[0], &byte, 1) < 0)
      _exit(2);
    _exit(0);
  }
  close(answer[1]);
  close(go[0]);
  char got = 0;
  cr_assert_eq(read(answer[0], &got, 1), 1);
  close(answer[0]);
  *release = go[1];
  *child = pid;
  return got == 'y';
}

static void end_child(int release, pid_t pid) {
  close(release);
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
}

Test(turns, held_turn_refuses_without_waiting_and_marks_the_want) {
  int fd = open_turns();
  uint64_t gpu = occ_turns_key(0, 0x41, 0);
  cr_assert(occ_turns_try(fd, gpu));
  cr_assert_not(occ_turns_wanted(fd, gpu), "nobody wants it yet");
  int release;
  pid_t child;
  cr_assert_not(child_try(gpu, &release, &child), "the turn is held");
  cr_assert(occ_turns_wanted(fd, gpu), "the child wants it");
  end_child(release, child);
  cr_assert_not(occ_turns_wanted(fd, gpu), "a dead process wants nothing");
  occ_turns_give(fd, gpu);
  cr_assert(child_try(gpu, &release, &child), "given back: free");
  end_child(release, child);
  remove_lock();
}

Test(turns, a_dead_holder_frees_the_turn) {
  int fd = open_turns();
  uint64_t gpu = occ_turns_key(0, 0x41, 0);
  int release;
  pid_t child;
  cr_assert(child_try(gpu, &release, &child));
  cr_assert_not(occ_turns_try(fd, gpu), "the child holds it");
  end_child(release, child);
  cr_assert(occ_turns_try(fd, gpu), "its holder ended");
  remove_lock();
}

Test(turns, another_gpu_is_not_held_back) {
  int fd = open_turns();
  uint64_t a = occ_turns_key(0, 0x41, 0), b = occ_turns_key(0, 0x42, 0);
  cr_assert_neq(a, b);
  cr_assert_neq(occ_turns_key(1, 0x41, 0), a, "the domain is part of it");
  cr_assert(occ_turns_try(fd, a));
  int release;
  pid_t child;
  cr_assert(child_try(b, &release, &child));
  cr_assert_not(occ_turns_wanted(fd, a));
  end_child(release, child);
  remove_lock();
}

Test(turns, without_a_lock_file_every_turn_is_taken) {
  cr_assert_eq(occ_turns_open(NULL), -1);
  cr_assert_eq(occ_turns_open(""), -1);
  cr_assert_eq(occ_turns_open("/tmp/occ_turns_none_made"), -1,
               "the library never makes the file");
  cr_assert(occ_turns_try(-1, 7));
  cr_assert_not(occ_turns_wanted(-1, 7));
}
