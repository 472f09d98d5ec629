Feature: One stateless service
  A single deployment is both the authorization server, which issues tokens,
  and the resource server, which serves the API. It keeps no session: a
  request counts as authenticated only when it carries a valid access token
  in the Authorization: Bearer header. The other places a client library
  may put a token (RFC 6750: the access_token query parameter or form
  field; a cookie, under a common name or one the service set) count for
  nothing.

  @spec @SVC-2
  Scenario: Resources carry their links as HAL
    When a caller reads the API root
    Then the answer is a HAL resource whose links are keyed by relation name, each with an href

  @spec @SVC-4
  Scenario: No answer sets a cookie
    When the user reads the API root
    And the user sends a request that needs a token
    Then no answer in this scenario set a cookie

  @spec @SVC-4 @AUTH-4
  Scenario: Without the token, nothing remembers the caller
    Given the user has sent a request that needs a token
    When a caller sends a request that needs a token, with every cookie received so far
    Then the request is refused as unauthenticated

  @spec @SVC-4 @writes
  Scenario Outline: The user's access token <place> does not authenticate a write
    When a caller sends a new event to the event list with the user's access token <place>
    Then the request is refused as unauthenticated
    And no event with the name sent was created

    Examples:
      | place                                 |
      | as the query parameter "access_token" |
      | in the cookie "access_token"          |
      | in the cookie "token"                 |

  @spec @SVC-4 @writes
  Scenario Outline: The user's access token <place> does not authenticate an update
    Given the user has created an event
    When a caller sends an update of the event to its address with the user's access token <place>, renaming it "Renamed without a token"
    Then the request is refused as unauthenticated
    And the event is still there with its original name

    Examples:
      | place                                 |
      | as the query parameter "access_token" |
      | in the cookie "access_token"          |

  @spec @SVC-4 @writes
  Scenario: The user's access token in a form field does not authenticate a write
    When a caller sends a new event to the event list as a form, with the user's access token in the field "access_token"
    Then the request is refused as unauthenticated
    And no event with the name sent was created

  @spec @SVC-4
  Scenario Outline: A read with the user's access token <place> is served as to anyone
    When a caller lists the events with the user's access token <place>
    Then the answer has status 200
    And the answer offers no more than it offers an anonymous caller

    Examples:
      | place                                 |
      | as the query parameter "access_token" |
      | in the cookie "access_token"          |
      | in the cookie "token"                 |

  @spec @SVC-6 @AUTH-5
  Scenario: The documentation page is public
    When a caller reads the documentation page
    Then the answer has status 200
    And the answer is an HTML page

  @spec @AUTH-5
  Scenario: A bad Authorization header does not keep the documentation away
    When a caller with an invalid token reads the documentation page
    Then the answer has status 200

  @spec @SVC-7
  Scenario: Scheme names are read in any case
    Given the client writes the "Basic" scheme as "basic"
    And the user writes the "Bearer" scheme as "BEARER"
    When the client asks for the user's token
    Then a token is issued
    When the user lists the events
    Then the answer offers the link "create-new-event"
    And the access token is accepted by the resource server

  @spec @SVC-7 @writes
  Scenario: A write with the scheme written in lower case is authenticated
    Given the user writes the "Bearer" scheme as "bearer"
    When the user creates an event through the "create-new-event" link
    Then the event is created
