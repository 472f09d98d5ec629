Feature: Reading an event
  Anyone may read an event. The manager of the event, calling with a valid
  access token, is also offered the link to update it; nobody else is:
  that is what an event offers "exactly what the caller may do" means.
  Every link of an event leads where its relation says: "self" to the same
  event, "profile" to documentation that is served.

  The event these scenarios read is one the user creates, or in a
  read-only run, one the user already manages on the target.

  Background:
    Given the user manages an event

  @spec @API-7 @SVC-5
  Scenario: Anyone can read an event without a token
    When a caller reads the event
    Then the answer has status 200

  @spec @API-8 @SVC-3
  Scenario: Only the manager is offered the update link
    When the user reads the event
    Then the answer offers the link "update-event"
    And the answer offers the caller exactly what they may do
    When a caller reads the event
    Then the answer does not offer the link "update-event"
    When a caller with an invalid token reads the event
    Then the answer does not offer the link "update-event"
    When the other user reads the event
    Then the answer does not offer the link "update-event"
    And the answer offers the caller exactly what they may do

  @spec @API-10 @SVC-2
  Scenario: Every link of the event leads where its relation says
    When the user reads the event
    Then the answer is a HAL resource whose links are keyed by relation name, each with an href
    And every link of the answer leads where its relation says

  @ref @API-8 @API-11
  Scenario: The reference server shows the event, its manager and its links
    When the user reads the event
    Then the answer is an event with a manager
    And the answer offers the links "self, query-events, update-event, profile"
    And every link of the answer is an absolute address

  @ref @API-11
  Scenario Outline: An event that does not exist is not found
    When a caller reads the event "<id>" through the "get-an-event" link of the event list
    Then the answer has status 404

    Examples:
      | id                   |
      | 987654321            |
      | not-a-number         |
      | 99999999999999999999 |
