/*
 * A Kafka-protocol broker for tests: librdkafka's mock cluster in a process of its own, so kafkajs speaks to it
 * over TCP exactly as it speaks to Kafka. Prints the bootstrap servers (host:port,...) on one line of stdout, then
 * serves until stdin closes or SIGTERM/SIGINT/SIGHUP arrives, and destroys the cluster. The listeners are loopback
 * only. Built and started by libs/core/testing/src/kafka-mock-cluster.ts; usage: mock-cluster [brokers]
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/* Turns "stdin closed" (the parent went away) into the same signal a stop sends, so main has one thing to wait on. */
static void *watch_stdin(void *unused) {
    char buffer[256];
    ssize_t n;
    (void)unused;
    do {
        n = read(STDIN_FILENO, buffer, sizeof buffer);
    } while (n > 0 || (n < 0 && errno == EINTR));
    kill(getpid(), SIGTERM);
    return NULL;
}

int main(int argc, char **argv) {
    int brokers = argc > 1 ? atoi(argv[1]) : 3;
    char errstr[512];
    sigset_t stop_signals;
    pthread_t watcher;
    int signal_number = 0;

    if (brokers < 1) brokers = 1;

    /* Blocked before any thread starts, so librdkafka's threads inherit the mask and only sigwait() below sees them. */
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The handle only hosts the cluster: keep its own warnings (no bootstrap servers) off stderr. */
    if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "mock-cluster: %s\n", errstr);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
        fprintf(stderr, "mock-cluster: rd_kafka_new failed: %s\n", errstr);
        return 1;
    }
    rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mcluster) {
        fprintf(stderr, "mock-cluster: rd_kafka_mock_cluster_new(%d) failed\n", brokers);
        rd_kafka_destroy(rk);
        return 1;
    }

    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
    fflush(stdout);

    if (pthread_create(&watcher, NULL, watch_stdin, NULL) != 0) {
        fprintf(stderr, "mock-cluster: cannot watch stdin\n");
    } else {
        pthread_detach(watcher);
    }
    sigwait(&stop_signals, &signal_number);

    rd_kafka_mock_cluster_destroy(mcluster);
    rd_kafka_destroy(rk);
    return 0;
}
