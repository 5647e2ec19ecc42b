import { deciderSpec } from '#testing/decider-spec';
import { peopleDirectoryDecider } from './people-directory.decider.js';

const given = deciderSpec(peopleDirectoryDecider);

describe('people directory setting (decider)', () => {
  it('is closed until opened; opening and closing are recorded once each', () => {
    given().when({ type: 'SetPeopleDirectory', open: false }).then([]);
    given()
      .when({ type: 'SetPeopleDirectory', open: true })
      .then([{ type: 'PeopleDirectoryOpened', data: {} }]);
    given({ type: 'PeopleDirectoryOpened', data: {} })
      .when({ type: 'SetPeopleDirectory', open: true })
      .then([]);
    given({ type: 'PeopleDirectoryOpened', data: {} })
      .when({ type: 'SetPeopleDirectory', open: false })
      .then([{ type: 'PeopleDirectoryClosed', data: {} }]);
  });
});
