Feature: Who may do what
  The resource server lets everyone read under /api/, asks for a valid
  access token for everything else it handles, and leaves the documentation
  and static files open to all. Client credentials are for the token
  endpoint only, and each token is for one purpose: a refresh token opens
  nothing on the API.

  @spec @AUTH-1 @writes
  Scenario: Client credentials do not authenticate a write
    When a caller with the client's credentials sends a new event to the event list
    Then the request is refused as unauthenticated
    And no event with the name sent was created

  @spec @AUTH-1 @AUTH-2
  Scenario: Client credentials on a read count for nothing
    When a caller with the client's credentials lists the events
    Then the request is not refused for lack of authentication
    And the answer offers no more than it offers an anonymous caller

  @spec @TOK-13 @writes
  Scenario: A refresh token is not an access token
    Given the user has a token
    When a caller with the user's refresh token sends a new event to the event list
    Then the request is refused as unauthenticated
    And no event with the name sent was created
    And the refresh token is refused by the resource server

  @ref @TOK-13 @AUTH-7
  Scenario: The reference server refuses a refresh token on the API as an invalid token
    Given the user has a token
    When a caller with the user's refresh token sends a new event to the event list
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer" and error "invalid_token"
    And the answer does not repeat any token of this scenario

  @spec @AUTH-2
  Scenario Outline: Any GET under /api/ is open to everyone
    When a caller sends GET to "<path>"
    Then the request is not refused for lack of authentication

    Examples:
      | path                  |
      | /api                  |
      | /api/events           |
      | /api/no-such-resource |

  @spec @AUTH-3
  Scenario Outline: Any other method under /api/ needs a token
    When a caller sends <method> to "<path>"
    Then the request is refused as unauthenticated

    Examples:
      | method | path                  |
      | POST   | /api/events           |
      | DELETE | /api/events           |
      | PATCH  | /api/events           |
      | POST   | /api/no-such-resource |
      | DELETE | /api                  |

  @spec @AUTH-3 @writes
  Scenario Outline: Changing an event needs a token, whatever the method
    Given the user has created an event
    When a caller sends <method> to the event's address
    Then the request is refused as unauthenticated

    Examples:
      | method |
      | PUT    |
      | DELETE |
      | PATCH  |

  @ref @AUTH-3 @AUTH-7
  Scenario: The reference server answers 401 to a write without a token, even where nothing exists
    When a caller sends DELETE to "/api/no-such-resource"
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer"

  @ref @AUTH-4
  Scenario: Outside the API, the reference server asks for a token before saying what exists
    When a caller sends GET to "/somewhere-else"
    Then the answer has status 401
    When the user sends GET to "/somewhere-else"
    Then the answer has status 404

  @spec @AUTH-5
  Scenario Outline: The favicon and the static locations are not behind the security filter
    When a caller with an invalid token sends GET to "<path>"
    Then the request is not refused for lack of authentication

    Examples:
      | path                |
      | /favicon.ico        |
      | /css/site.css       |
      | /js/app.js          |
      | /images/logo.png    |
      | /webjars/lib/lib.js |

  @ref @AUTH-5
  Scenario Outline: The reference server's documentation files are served whatever the Authorization header holds
    When a caller with an invalid token sends GET to "<path>"
    Then the answer has status 200

    Examples:
      | path             |
      | /docs/index.html |
      | /favicon.ico     |
      | /css/docs.css    |
