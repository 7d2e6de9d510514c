package io.dimstream.app.service;

import io.dimstream.config.keys.ConfigDefaults;
import io.dimstream.app.replay.ReplaySettings;
import io.dimstream.config.model.ServiceConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How one dimstream instance runs besides its config file.
 *
 * @param dataDir        where the Kafka Streams state (and, when embedded, the broker's log and
 *                       PostgreSQL's data) live
 * @param applicationId  the Kafka Streams application id; instances with the same id share the
 *                       work (partitions) the Kafka way
 * @param partitions     partitions of the topics dimstream creates (changes, DLQ; source topics
 *                       too when the broker is embedded)
 * @param pruneInterval  how often the event memory is pruned beyond each entity's horizon
 * @param adminWorkers   run the workers that execute admin actions kept in PostgreSQL: replay
 *                       jobs, the DLQ mirror and DLQ re-drives (on by default)
 * @param replay         how the replay worker runs
 * @param instanceId     this instance's stable identity in its consumer groups (Kafka's static
 *                       membership, {@code group.instance.id}): the sink's consumer takes
 *                       {@code <id>-sink}, Kafka Streams {@code <id>} (plus its thread number). A
 *                       restarted instance with the same id takes its partitions back at once
 *                       instead of after the dead member's session timeout. It must differ between
 *                       instances running at the same time. Empty: dynamic membership.
 */
public record ServiceOptions(Path dataDir, String applicationId, int partitions, Duration pruneInterval, boolean adminWorkers,
                              ReplaySettings replay, java.util.Optional<String> instanceId) {

    /** Admin workers on, default replay settings, dynamic membership. */
    public ServiceOptions(Path dataDir, String applicationId, int partitions, Duration pruneInterval) {
        this(dataDir, applicationId, partitions, pruneInterval, true, ReplaySettings.defaults(), java.util.Optional.empty());
    }

    /** The defaults of the config's {@code service:} keys. */
    public static ServiceOptions defaults(Path dataDir) {
        return of(dataDir, ConfigDefaults.SERVICE);
    }

    /** The options of the config's {@code service:} section (admin workers on, dynamic membership). */
    public static ServiceOptions of(Path dataDir, ServiceConfig service) {
        return new ServiceOptions(dataDir, service.applicationId(), service.partitions(), service.pruneInterval(), true,
                ReplaySettings.from(service.replay()), java.util.Optional.empty());
    }

    public ServiceOptions withAdminWorkers(boolean on) {
        return new ServiceOptions(dataDir, applicationId, partitions, pruneInterval, on, replay, instanceId);
    }

    public ServiceOptions withReplay(ReplaySettings settings) {
        return new ServiceOptions(dataDir, applicationId, partitions, pruneInterval, adminWorkers, settings, instanceId);
    }

    /** @param id see {@link #instanceId()}; null or blank for dynamic membership */
    public ServiceOptions withInstanceId(String id) {
        return new ServiceOptions(dataDir, applicationId, partitions, pruneInterval, adminWorkers, replay,
                id == null || id.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(id));
    }
}
