// A Knowledge document the suites upload and ask about: two sections, each a fact the answers cite.
export const VOLCANOES = [
  '# Volcanoes of Italy',
  '',
  '## Etna',
  '',
  'Mount Etna is an active stratovolcano on the east coast of Sicily. It is the tallest active volcano in Europe.',
  '',
  '## Vesuvius',
  '',
  'Mount Vesuvius stands in Campania, near the Bay of Naples. Its eruption in 79 AD buried Pompeii.',
  '',
].join('\n');
