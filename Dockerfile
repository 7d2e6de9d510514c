# The dimstream image: the packaged distribution (./mvnw package -> cli/target/dimstream.tar.gz)
# on a JRE. Built from a clean clone by `docker-compose build`: the first stage builds the
# distribution with the committed Maven wrapper, so the host needs nothing but Docker.
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B -q -DskipTests package -pl cli -am

FROM eclipse-temurin:17-jre
RUN useradd --system --home /var/lib/dimstream --create-home dimstream
COPY --from=build /src/cli/target/dimstream.tar.gz /tmp/dimstream.tar.gz
RUN tar -xzf /tmp/dimstream.tar.gz -C /opt && rm /tmp/dimstream.tar.gz
USER dimstream
WORKDIR /var/lib/dimstream
ENTRYPOINT ["/opt/dimstream/bin/dimstream"]
CMD ["--help"]
