@writes
Feature: Creating and updating events
  Creating and updating events needs a valid access token. Whoever creates
  an event becomes its manager, and only the manager may update it.

  @spec @API-6 @SVC-5
  Scenario: A user with a token creates an event and becomes its manager
    When the user creates an event through the "create-new-event" link
    Then the event is created
    When the user reads the event
    Then the answer offers the link "update-event"

  @spec @API-6
  Scenario: An event named in several scripts reads back as named
    When the user creates an event named "Fête · Ωmega · 東京 · Москва · 🎉"
    Then the event is created
    When a caller reads the event
    Then the event is named "Fête · Ωmega · 東京 · Москва · 🎉"

  @spec @API-6
  Scenario: Events created at the same moment are events of their own
    When the user and the other user create 3 events each at the same moment
    Then each creation made an event of its own
    And every event created is listed and reads back as it was created

  @spec @SVC-2 @SVC-3 @API-10
  Scenario: The answers to a creation and to an update are HAL, and their links lead where they say
    When the user creates an event through the "create-new-event" link
    Then the answer is a HAL resource, if it has a JSON body
    And the answer offers the caller exactly what they may do
    And every link of the answer leads where its relation says
    When the user updates the event through its "update-event" link, renaming it "Renamed"
    Then the answer is a HAL resource, if it has a JSON body
    And the answer offers the caller exactly what they may do
    And every link of the answer leads where its relation says

  @ref @API-6 @API-10 @API-11
  Scenario: The reference server answers a creation with 201 and the event's address
    When the user creates an event through the "create-new-event" link
    Then the answer has status 201
    And the answer's Location is the event's "self" link
    And the answer offers the links "self, query-events, update-event, profile"
    And the answer is an event in status "DRAFT" with a manager

  @spec @AUTH-3 @SVC-5
  Scenario Outline: Creating an event without a valid token is refused, and creates nothing
    When <caller> sends a new event to the event list
    Then the request is refused as unauthenticated
    And no event with the name sent was created

    Examples:
      | caller                         |
      | a caller                       |
      | a caller with an invalid token |

  @ref @AUTH-3 @AUTH-7
  Scenario: The reference server refuses a creation without a token with 401 and a challenge
    When a caller sends a new event to the event list
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer"
    And the error description mentions "authentication"

  @ref @AUTH-7
  Scenario: The reference server refuses an invalid token with a challenge that says why, and does not repeat it
    When a caller with an invalid token sends a new event to the event list
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer" and error "invalid_token"
    And the answer does not repeat any token of this scenario

  @spec @API-9
  Scenario: The manager updates the event
    Given the user has created an event
    When the user updates the event through its "update-event" link, renaming it "Renamed by its manager"
    Then the answer has a success status
    When a caller reads the event
    Then the event is named "Renamed by its manager"

  @spec @API-8 @API-9
  Scenario: After an update every field sent reads back, and the manager may update again
    Given the user has created an event
    When the user updates the event through its "update-event" link, renaming it "Ærø · Ωmega · 東京 · 🎉" and changing every other text
    Then the answer has a success status
    And every field sent reads back as sent
    When the user reads the event
    Then the answer offers the caller exactly what they may do
    When the user updates the event through its "update-event" link, renaming it "Second update"
    Then the answer has a success status
    When a caller reads the event
    Then the event is named "Second update"

  @spec @AUTH-6 @API-9
  Scenario: Another user may not update the event
    Given the user has created an event
    When the other user sends an update of the event to its address, renaming it "Taken over"
    Then the request is refused for lack of permission
    When a caller reads the event
    Then the event still has its original name

  @spec @AUTH-3 @API-9
  Scenario Outline: Updating an event without a valid token is refused
    Given the user has created an event
    When <caller> sends an update of the event to its address, renaming it "Taken over"
    Then the request is refused as unauthenticated
    When a caller reads the event
    Then the event still has its original name

    Examples:
      | caller                         |
      | a caller                       |
      | a caller with an invalid token |

  @ref @API-11
  Scenario: The reference server checks a missing event before the manager, and the manager before the body
    Given the user has created an event
    When the other user sends an invalid update of the event to its address
    Then the answer has status 403
    When the user sends an update to the event "987654321" through the "get-an-event" link of the event list
    Then the answer has status 404

  @ref @API-11
  Scenario: Free and offline are computed from the prices and the location
    When the user creates an event with:
      | basePrice | 0        |
      | maxPrice  | 0        |
      | location  | (absent) |
    Then the event is free and online
    When the user updates the event through its "update-event" link with:
      | basePrice | 100       |
      | maxPrice  | 200       |
      | location  | Main hall |
    Then the event is not free and offline

  @ref @API-11
  Scenario Outline: An invalid event is refused with the field and the reason
    Given the event list holds some number of events
    When the user creates an event with:
      | <field> | <value> |
    Then the answer is a validation error on "<field>" with code "<code>"
    And the event list holds as many events as before

    Examples:
      | field              | value               | code         |
      | name               | (absent)            | NotEmpty     |
      | description        |                     | NotEmpty     |
      | beginEventDateTime | (absent)            | NotNull      |
      | beginEventDateTime | 25/11/2026 14:21    | typeMismatch |
      | basePrice          | -1                  | Min          |
      | limitOfEnrollment  | 1.5                 | typeMismatch |
      | endEventDateTime   | 2000-01-01T00:00:00 | wrongValue   |
      | id                 | 42                  | notAllowed   |
      | eventStatus        | PUBLISHED           | notAllowed   |
      | nickname           | party               | notAllowed   |
      | name               | (256 characters)    | Size         |
      | location           | (256 characters)    | Size         |
      | description        | (4001 characters)   | Size         |

  @ref @API-11
  Scenario: Texts up to their limits are accepted
    When the user creates an event with:
      | name        | (255 characters)  |
      | location    | (255 characters)  |
      | description | (4000 characters) |
    Then the answer has status 201

  @ref @API-11 @local
  Scenario: The reference server caps the events one user manages
    Given the reference server runs with at most 2 events per user
    And the user has created 2 events
    When the user creates an event through the "create-new-event" link
    Then the answer is an error with status 403
    And the error description mentions "at most 2 events"

  @ref @API-11
  Scenario: A base price above the maximum price is a global error
    When the user creates an event with:
      | basePrice | 300 |
      | maxPrice  | 200 |
    Then the answer is a validation error with the global code "wrongPrices"

  @ref @API-11
  Scenario: A body that is not a JSON object is refused
    When the user sends the body "[1, 2, 3]" to the event list
    Then the answer has status 400
