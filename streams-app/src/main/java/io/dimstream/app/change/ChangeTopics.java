package io.dimstream.app.change;

/**
 * The one place the changes topic of an entity is named: the topology writes it, the sink reads it.
 * The name begins with the deployment's application id ({@code service.application-id}), as every
 * topic dimstream owns does (the DLQ, Kafka Streams' repartition and changelog topics), so two
 * deployments on one Kafka cluster with entities of the same name never read each other's changes.
 */
public final class ChangeTopics {

    private ChangeTopics() {
    }

    /**
     * {@code <application-id>.<entity>.changes}; under the default application id {@code dimstream},
     * {@code dimstream.<entity>.changes}, the name every deployment's changes topic had before.
     */
    public static String name(String applicationId, String entity) {
        return applicationId + "." + entity + ".changes";
    }
}
