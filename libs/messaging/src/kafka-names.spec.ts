import { KafkaNames } from './kafka-names';

describe('KafkaNames', () => {
  it('given no prefix, when names are translated, then they are the declared names both ways', () => {
    const names = new KafkaNames('');
    expect(names.onCluster('location.events.v1')).toBe('location.events.v1');
    expect(names.declared('location.events.v1')).toBe('location.events.v1');
  });

  it('given a prefix, when a topic and a group are put on the cluster, then each starts with <prefix>.', () => {
    const names = new KafkaNames('staging');
    expect(names.onCluster('location.events.v1')).toBe('staging.location.events.v1');
    expect(names.onCluster('location-query')).toBe('staging.location-query');
  });

  it('given a prefix, when a topic of the cluster is read back, then its declared name comes back', () => {
    const names = new KafkaNames('eu.staging');
    expect(names.declared(names.onCluster('location.events.v1.location-query.dlq'))).toBe(
      'location.events.v1.location-query.dlq',
    );
  });
});
