Feature: The API root
  Clients start at the API root and follow its links. The address of the
  event list is read from the root's "events" link; a client never builds
  it.

  @spec @API-1
  Scenario: Anyone can read the API root and find the events there
    When a caller reads the API root
    Then the answer has status 200
    And the answer offers the link "events"

  @spec @API-10
  Scenario: The link to the events can be followed as it is
    When a caller reads the API root
    And the caller follows the "events" link
    Then the answer has status 200

  @spec @API-10
  Scenario: Every link of the API root leads where its relation says
    When a caller reads the API root
    Then every link of the answer leads where its relation says

  @ref @API-10 @API-11
  Scenario: The reference server writes absolute links and names its documentation
    When a caller reads the API root
    Then every link of the answer is an absolute address
    And the answer offers the links "events, profile"
