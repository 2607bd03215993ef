import type { KafkaConfig as KafkaJsConfig, SASLOptions } from 'kafkajs';
import type { KafkaConfig } from './config';

/**
 * How a kafkajs client reaches and logs into the cluster, from a service's Kafka settings: the brokers, TLS with the
 * configured CA (or the system's), and the service's own SASL principal. Every kafkajs client of the project (the
 * bus, tests, benchmarks, tools) is made from this, so none connects any other way.
 */
export function kafkaConnectionOf(
  config: Pick<KafkaConfig, 'brokers' | 'clientId' | 'tls' | 'sasl'>,
): Pick<KafkaJsConfig, 'brokers' | 'clientId' | 'ssl' | 'sasl'> {
  return {
    brokers: [...config.brokers],
    clientId: config.clientId,
    ...(config.tls && { ssl: config.tls.ca === undefined ? true : { ca: [config.tls.ca] } }),
    ...(config.sasl && { sasl: { ...config.sasl } as SASLOptions }),
  };
}
